"""The ``neo4j.conf`` kgmem writes for its local server."""

from __future__ import annotations

from kgmem.config import Neo4jSettings
from kgmem.errors import ConfigError

# The JVM flags Neo4j's own distribution ships in neo4j.conf (minus AlwaysPreTouch,
# which slows start-up for no gain on a small heap).
_JVM_FLAGS = (
    "-XX:+UseG1GC",
    "-XX:-OmitStackTraceInFastThrow",
    "-XX:+UnlockExperimentalVMOptions",
    "-XX:+TrustFinalNonStaticFields",
    "-XX:+DisableExplicitGC",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Djdk.tls.ephemeralDHKeySize=2048",
    "-Djdk.tls.rejectClientInitiatedRenegotiation=true",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED",
    "-Dlog4j2.disable.jmx=true",
)


_KB = {"k": 1, "m": 1024, "g": 1024 * 1024}


def half(size: str) -> str:
    """Half of a memory size as the settings write it (``"1g"`` -> ``"512m"``, ``"3m"`` -> ``"1536k"``)."""
    kb = int(size[:-1]) * _KB[size[-1].lower()] // 2
    unit = next(u for u in "gmk" if kb % _KB[u] == 0)
    return f"{kb // _KB[unit]}{unit}"


def _shutdown_lines(version: str) -> list[str]:
    """Bolt's shutdown without Netty's quiet period. Neo4j stops Bolt after its databases are stopped
    and checkpointed, then waits for its Netty event loops to stay idle for 5 s (once or twice, as
    debug.log shows): 5-10 s of every `kgmem down` that protect nothing written. The setting is
    internal to Neo4j 5 (strict config validation refuses a name a version does not know), so other
    versions keep the wait."""
    if not version.startswith("5."):
        return []
    return ["internal.dbms.bolt.netty_server_shutdown_quiet_period=0"]


def render_conf(cfg: Neo4jSettings, extra_lines: list[str] | None = None) -> str:
    """neo4j.conf for a loopback-only server sized for a 2-core / few-GiB machine."""
    lines = [
        "# Written by `kgmem up`; regenerated on every start — put changes in kgmem.toml [neo4j].",
        "server.default_listen_address=127.0.0.1",
        "server.default_advertised_address=127.0.0.1",
        f"server.bolt.listen_address=127.0.0.1:{cfg.bolt_port}",
        f"server.http.listen_address=127.0.0.1:{cfg.http_port}",
        "server.https.enabled=false",
        "server.bolt.tls_level=DISABLED",
        f"server.memory.heap.initial_size={cfg.heap}",
        f"server.memory.heap.max_size={cfg.heap}",
        f"server.memory.pagecache.size={cfg.pagecache}",
        # Half the heap for all open transactions together: a larger heap (for a large namespace's
        # `kgmem import --replace`, one transaction) lifts the limit with it; 1g gives 512m.
        f"dbms.memory.transaction.total.max={half(cfg.heap)}",
        "dbms.usage_report.enabled=false",
        "dbms.security.auth_enabled=true",
        "server.directories.import=import",
        "db.tx_log.rotation.retention_policy=2 days 1G",
        *_shutdown_lines(cfg.version),
        *(f"server.jvm.additional={flag}" for flag in _JVM_FLAGS),
        *(extra_lines or []),
    ]
    written = {line.split("=", 1)[0] for line in lines if "=" in line and not line.startswith("#")}
    taken = sorted(written.intersection(cfg.extra_conf))
    if taken:
        raise ConfigError(
            f"neo4j.extra_conf sets {', '.join(taken)}, which kgmem writes itself: ports and memory come "
            "from the [neo4j] keys bolt_port, http_port, heap and pagecache; the rest is fixed"
        )
    lines += [f"{key}={value}" for key, value in cfg.extra_conf.items()]
    return "\n".join(lines) + "\n"

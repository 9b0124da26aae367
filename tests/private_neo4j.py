"""Private Neo4j servers for tests that stop, kill -9 or restart one (never the shared server).

The one way to get one: :func:`start` (behind the ``private_neo4j`` factory fixture of
tests/conftest.py and the session-wide ``stream_neo4j`` of tests/reliability/conftest.py).
Each server has its own ``KGMEM_HOME`` in a temp dir and its own port pair from :data:`PORTS`,
so tests that may run in one session never share a server; its jars are linked from the shared
install when there is one (same version: no Maven download).

``KGMEM_TEST_PRIVATE_PORTS=bolt:http`` moves every pair to those ports — for running one such
test at a time next to other checkouts that use the default pairs.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any

from kgmem.config import Settings, load_settings
from kgmem.paths import private_dir
from kgmem.server.local import _port_open as port_open  # the server's own "is anything listening" probe

#: Port pairs (bolt, http) by user; the shared server is on 7687/7474.
PORTS: dict[str, tuple[int, int]] = {
    "spool": (17687, 17474),  # tests/integration/learning/test_spool.py (stopped and started)
    "client_spool": (18687, 18474),  # tests/integration/client/test_both_clients.py (both clients' spool)
    "ingest_kill": (19687, 19474),  # tests/reliability/test_ingest_kill.py (kill -9 mid-ingest)
    "stream": (20687, 20474),  # stream_neo4j, session-wide: tests/reliability/test_kill9_stream.py
    "defer": (21687, 21474),  # tests/integration/learning/test_deferred.py (stopped with repeats deferred)
    "first_connect": (25687, 25474),  # tests/integration/client/test_first_connect_schema.py (no kgmem init)
}
PASSWORD = "kgmem-private-test"
PORTS_ENV = "KGMEM_TEST_PRIVATE_PORTS"


def ports(name: str) -> tuple[int, int]:
    """The (bolt, http) ports of the server called ``name`` (or the ``KGMEM_TEST_PRIVATE_PORTS`` pair)."""
    override = os.environ.get(PORTS_ENV)
    if override:
        bolt, http = override.split(":")
        return int(bolt), int(http)
    return PORTS[name]


def private_settings(
    home: Path,
    bolt_port: int,
    http_port: int,
    base: Settings | None = None,
    namespace: str = "private",
    **overrides: Any,
) -> Settings:
    """Settings of a private server in ``home``. A dict in ``overrides`` is merged into that
    section (``neo4j={"offline_retry_s": 1.0}`` keeps the ports)."""
    sections: dict[str, Any] = {
        "neo4j": {
            "uri": f"bolt://127.0.0.1:{bolt_port}",
            "bolt_port": bolt_port,
            "http_port": http_port,
            "password": PASSWORD,
            "heap": "384m",
            "pagecache": "64m",
        },
        "chroma": {"path": str(home / "chroma")},
    }
    if base is not None:
        sections["neo4j"].update(version=base.neo4j.version, browser_version=base.neo4j.browser_version)
        _link_jars(base, home)
    for key, value in overrides.items():
        sections[key] = {**sections.get(key, {}), **value} if isinstance(value, dict) else value
    return load_settings(home=home, namespace=namespace, **sections)


def _link_jars(base: Settings, home: Path) -> None:
    shared_lib = base.neo4j_home / "lib"
    lib = home / "neo4j" / "lib"
    if shared_lib.is_dir() and not lib.exists():
        private_dir(lib.parent)
        lib.symlink_to(shared_lib, target_is_directory=True)


class PrivateNeo4j:
    """One private server: ``settings`` point at it; ``up``/``down``/``kill9`` control it."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    @property
    def server(self):  # noqa: ANN201 - kgmem.server.LocalNeo4j
        from kgmem.server import LocalNeo4j

        return LocalNeo4j(self.settings)

    @property
    def bolt_port(self) -> int:
        return self.settings.neo4j.bolt_port

    def up(self) -> None:
        self.server.up()

    def down(self) -> None:
        self.server.down()

    def kill9(self) -> int:
        """SIGKILL the JVM (no shutdown hook, no checkpoint); returns its pid once it is gone and
        its bolt port is closed."""
        pid = self.server.status().pid
        assert pid is not None, "private Neo4j is not running"
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.1)
        else:
            raise AssertionError(f"Neo4j pid {pid} survived SIGKILL")
        while port_open(self.bolt_port) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not port_open(self.bolt_port), "Neo4j still listening after kill -9"
        return pid


def start(home: Path, name: str, base: Settings | None = None, **overrides: Any) -> PrivateNeo4j:
    """Start the private server ``name`` (ports from :func:`ports`) with its home in ``home``;
    fails at once, naming the port, when another server holds it."""
    bolt, http = ports(name)
    if port_open(bolt):
        raise AssertionError(f"port {bolt} is taken: another private Neo4j ({name!r}) is still running")
    server = PrivateNeo4j(private_settings(home, bolt, http, base, **overrides))
    server.up()
    return server

"""A private Neo4j for tests that stop, kill -9 or restart one (never the shared test server).

One private server per test session (the ``private_server`` fixture of tests/conftest.py): starting a
JVM costs 30-90 s on a loaded machine, so tests share it and pay only for the stops, restarts and
kills their fault needs. Each test gets a :meth:`PrivateNeo4j.view` of it (``private_neo4j`` fixture):
its own ``KGMEM_HOME`` (spool, Chroma, config) and client settings, the server's ports and password;
``up``/``down``/``kill9`` act on the one server. After each test the fixture starts the server again
when the test left it down and empties its database, so every test starts from a running, empty server.

Ports: ``KGMEM_TEST_PRIVATE_PORTS=bolt:http``, or two free ports (tests/ports.py).
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

from kgmem.config import Settings, load_settings
from kgmem.server.local import _port_open as port_open  # the server's own "is anything listening" probe

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ports import free_ports  # type: ignore[import-not-found]  # noqa: E402
from shared_jars import link_jars  # type: ignore[import-not-found]  # noqa: E402

PASSWORD = "kgmem-private-test"
PORTS_ENV = "KGMEM_TEST_PRIVATE_PORTS"


def ports() -> tuple[int, int]:
    """The (bolt, http) ports of the private server: the ``KGMEM_TEST_PRIVATE_PORTS`` pair or two free ones
    (always free ones under pytest-xdist: each worker starts a server of its own)."""
    override = os.environ.get(PORTS_ENV)
    if override and not os.environ.get("PYTEST_XDIST_WORKER"):
        bolt, http = override.split(":")
        return int(bolt), int(http)
    bolt, http = free_ports(2)
    return bolt, http


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
            "start_timeout_s": 600,  # a JVM start took over 120 s on a loaded 2-core machine
        },
        "chroma": {"path": str(home / "chroma")},
    }
    if base is not None:
        sections["neo4j"].update(version=base.neo4j.version, browser_version=base.neo4j.browser_version)
        link_jars(base.neo4j_home / "lib", home / "neo4j" / "lib")
    for key, value in overrides.items():
        sections[key] = {**sections.get(key, {}), **value} if isinstance(value, dict) else value
    return load_settings(home=home, namespace=namespace, **sections)


class PrivateNeo4j:
    """The private server, as one test sees it: ``settings`` are the test's client settings (its own home,
    namespace and overrides); ``up``/``down``/``kill9`` and ``server`` act on the server itself (its home
    is ``server_settings.home``)."""

    def __init__(self, settings: Settings, server_settings: Settings | None = None) -> None:
        self.settings = settings
        self.server_settings = server_settings or settings

    @property
    def server(self):  # noqa: ANN201 - kgmem.server.LocalNeo4j
        from kgmem.server import LocalNeo4j

        return LocalNeo4j(self.server_settings)

    @property
    def bolt_port(self) -> int:
        return self.server_settings.neo4j.bolt_port

    def view(self, home: Path, namespace: str = "private", **overrides: Any) -> PrivateNeo4j:
        """This server for one test: client settings with their own ``home`` (created), ``namespace`` and
        ``overrides`` (as :func:`private_settings`)."""
        home.mkdir(parents=True, exist_ok=True)
        cfg = self.server_settings.neo4j
        settings = private_settings(home, cfg.bolt_port, cfg.http_port, namespace=namespace, **overrides)
        return PrivateNeo4j(settings, self.server_settings)

    def up(self) -> None:
        self.server.up()

    def down(self) -> None:
        self.server.down()

    def ensure_up(self) -> None:
        """Start the server again when a test left it stopped or killed."""
        if not (self.server.status().running and port_open(self.bolt_port)):
            self.up()

    def wipe(self) -> None:
        """Delete every node (the next test starts from an empty database) and re-apply the schema (a test
        may have dropped it)."""
        from kgmem.graph import GraphStore, connect
        from kgmem.graph.schema import apply_schema

        with connect(self.server_settings) as drv:
            drv.execute_query("MATCH (n) DETACH DELETE n")  # a test writes at most a few thousand nodes
            apply_schema(GraphStore(drv))

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


def start(home: Path, base: Settings | None = None, **overrides: Any) -> PrivateNeo4j:
    """Start a private server with its home in ``home`` (ports from :func:`ports`); fails at once, naming
    the port, when another server holds it."""
    bolt, http = ports()
    if port_open(bolt):
        raise AssertionError(f"port {bolt} is taken: another private Neo4j is still running")
    server = PrivateNeo4j(private_settings(home, bolt, http, base, **overrides))
    try:
        server.up()
    except BaseException:
        # A start that timed out kills only the launcher: the JVM it forked comes up later and would run
        # on, unowned, after the session (seen on a loaded machine). Stop it if its pid file is there.
        try:
            server.down()
        except Exception:  # noqa: BLE001 - nothing to stop; the start's error is the one to see
            pass
        raise
    return server

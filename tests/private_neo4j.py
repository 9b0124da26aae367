"""A private Neo4j server for tests that stop, kill or restart it (never the shared one).

Each test that needs one asks the ``private_neo4j`` fixture (tests/conftest.py) for a server on
its own ports with its own ``KGMEM_HOME`` under the test's tmp dir; the fixture stops it afterwards
even when the test fails.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any

from kgmem.config import Settings, load_settings
from kgmem.server import LocalNeo4j


class PrivateNeo4j:
    """One private server: ``settings`` point at it; ``up``/``down``/``kill9`` control it."""

    def __init__(self, tmp_path: Path, bolt_port: int, http_port: int, namespace: str = "private",
                 **overrides: Any) -> None:
        self.settings: Settings = load_settings(
            home=tmp_path / "home", namespace=namespace,
            neo4j={"uri": f"bolt://127.0.0.1:{bolt_port}", "bolt_port": bolt_port, "http_port": http_port,
                   "password": "kgmem-private-test", "heap": "384m", "pagecache": "64m"},
            chroma={"path": str(tmp_path / "chroma")},
            **overrides,
        )
        self.server = LocalNeo4j(self.settings)

    def up(self) -> None:
        self.server.up()

    def down(self) -> None:
        self.server.down()

    def kill9(self) -> int:
        """SIGKILL the JVM (no shutdown hook, no checkpoint) and wait until it is gone; returns its pid."""
        pid = self.server.status().pid
        assert pid is not None, "private Neo4j is not running"
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return pid
            time.sleep(0.1)
        raise AssertionError(f"Neo4j pid {pid} survived SIGKILL")

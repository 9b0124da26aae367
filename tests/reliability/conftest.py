"""Fixtures of the reliability suite (marker ``reliability``, added in tests/conftest.py).

``stream_neo4j``: one Neo4j server of the suite's own (bolt 20687, http 20474, KGMEM_HOME in a
temp dir) for tests that kill -9 it; started once per session and stopped at the end. Tests
that kill it must start it again before they return (``stream_neo4j.up()``).
"""

from __future__ import annotations

import sys
import uuid
from pathlib import Path

import pytest

# --import-mode=importlib leaves sys.path alone: make the helper module importable.
sys.path.insert(0, str(Path(__file__).resolve().parent))

from reliability_support import PrivateNeo4j, port_open, private_settings, PRIVATE_BOLT  # type: ignore[import-not-found]  # noqa: E402


@pytest.fixture(scope="session")
def stream_neo4j(base_settings, tmp_path_factory) -> PrivateNeo4j:  # type: ignore[no-untyped-def]
    from kgmem.graph import GraphStore, connect
    from kgmem.graph.schema import apply_schema

    if port_open(PRIVATE_BOLT):
        pytest.fail(f"port {PRIVATE_BOLT} is taken: another private Neo4j of this suite is still running")
    home = tmp_path_factory.mktemp("private-neo4j")
    server = PrivateNeo4j(private_settings(home, base_settings))
    server.up()
    with connect(server.settings) as drv:
        apply_schema(GraphStore(drv))
    yield server
    server.down()


@pytest.fixture
def private_ns(stream_neo4j: PrivateNeo4j) -> str:
    """A namespace of this test's own on the private server (the server is discarded afterwards)."""
    return f"rel-{uuid.uuid4().hex[:10]}"

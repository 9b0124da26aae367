"""Fixtures of the reliability suite (marker ``reliability``, added in tests/conftest.py).

``stream_neo4j``: one private Neo4j of the suite's own (``"stream"`` in tests/private_neo4j.py:
bolt 20687, http 20474; KGMEM_HOME in a temp dir) for tests that kill -9 it; started once per
session and stopped at the end. Tests that kill it must start it again before they return
(``stream_neo4j.up()``).
"""

from __future__ import annotations

import sys
import uuid
from pathlib import Path

import pytest

# --import-mode=importlib leaves sys.path alone: make the helper modules importable.
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import private_neo4j as private  # type: ignore[import-not-found]  # noqa: E402


@pytest.fixture(scope="session")
def stream_neo4j(base_settings, tmp_path_factory) -> private.PrivateNeo4j:  # type: ignore[no-untyped-def]
    from kgmem.graph import GraphStore, connect
    from kgmem.graph.schema import apply_schema

    server = private.start(
        tmp_path_factory.mktemp("private-neo4j"),
        "stream",
        base_settings,
        namespace="reliability",
        neo4j={"offline_retry_s": 1.0},
        learning={"offline_retry_s": 1.0},
    )
    with connect(server.settings) as drv:
        apply_schema(GraphStore(drv))
    yield server
    server.down()


@pytest.fixture
def private_ns(stream_neo4j: private.PrivateNeo4j) -> str:
    """A namespace of this test's own on the private server (the server is discarded afterwards)."""
    return f"rel-{uuid.uuid4().hex[:10]}"

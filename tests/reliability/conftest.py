"""Fixtures of the reliability suite (marker ``reliability``, added in tests/conftest.py).

``stream_neo4j``: the session's private Neo4j (tests/private_neo4j.py) for a test that kills it with
kill -9 mid-stream: namespace ``reliability``, client retries after 1 s. The ``private_neo4j`` fixture
starts it again and empties it afterwards.
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


@pytest.fixture
def stream_neo4j(private_neo4j) -> private.PrivateNeo4j:  # type: ignore[no-untyped-def]
    return private_neo4j(
        "stream", namespace="reliability", neo4j={"offline_retry_s": 1.0}, learning={"offline_retry_s": 1.0}
    )


@pytest.fixture
def private_ns(stream_neo4j: private.PrivateNeo4j) -> str:
    """A namespace of this test's own on the private server (emptied afterwards)."""
    return f"rel-{uuid.uuid4().hex[:10]}"

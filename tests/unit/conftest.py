"""Unit tests are pure logic: the fixtures that reach Neo4j, Chroma or the embedding model
(tests/conftest.py) are refused here, so such a test fails at once and belongs in tests/integration."""

from __future__ import annotations

import pytest

_REAL_STACK = ("base_settings", "driver", "graph", "embedder", "ns", "settings", "mem", "private_neo4j")


def _refuse(name: str):  # type: ignore[no-untyped-def]
    @pytest.fixture(name=name)
    def refused():  # type: ignore[no-untyped-def]
        pytest.fail(f"unit tests use no Neo4j, Chroma or model (fixture {name!r}): move the test to tests/integration")

    return refused


for _name in _REAL_STACK:
    globals()[f"_refused_{_name}"] = _refuse(_name)

"""GraphStore against the real server: named statements, parameters, clear errors."""

from __future__ import annotations

import pytest

from kgmem.errors import BackendUnavailable, CypherNotFound
from kgmem.graph import GraphStore, connect
from kgmem.graph.schema import SCHEMA_VERSION, apply_schema, schema_version


def test_schema_is_idempotent(graph: GraphStore) -> None:
    assert apply_schema(graph) == SCHEMA_VERSION
    assert apply_schema(graph) == SCHEMA_VERSION
    assert schema_version(graph) == SCHEMA_VERSION


def test_unknown_statement_is_named(graph: GraphStore) -> None:
    with pytest.raises(CypherNotFound, match="no_such_statement"):
        graph.read("no_such_statement")


def test_unreachable_server_is_reported(base_settings) -> None:
    dead = base_settings.model_copy(
        update={"neo4j": base_settings.neo4j.model_copy(update={"uri": "bolt://127.0.0.1:9"})}
    )
    driver = connect(dead)
    try:
        with pytest.raises(BackendUnavailable, match="not reachable"):
            GraphStore(driver, attempts=1).read("schema_version")
    finally:
        driver.close()

"""Apply ``cypher/schema.cypher`` (constraints, indexes, schema version)."""

from __future__ import annotations

import logging

from kgmem.graph.store import GraphStore

log = logging.getLogger(__name__)

SCHEMA_VERSION = 4


def apply_schema(graph: GraphStore) -> int:
    """Create every constraint and index idempotently; record and return the schema version."""
    graph.write_statements("schema", version=SCHEMA_VERSION)
    log.info("schema version %s applied", SCHEMA_VERSION)
    return SCHEMA_VERSION


def schema_version(graph: GraphStore) -> int | None:
    """The schema version recorded in the graph, or None before `kgmem init`."""
    rows = graph.read("schema_version")
    return rows[0]["version"] if rows else None

"""Apply ``cypher/schema.cypher`` (constraints, indexes, schema version)."""

from __future__ import annotations

import logging

from kgmem.graph.store import GraphStore
from kgmem.ids import ns_key

log = logging.getLogger(__name__)

SCHEMA_VERSION = 8  # 8: Concept constraint + (ns, key) index | 7: session-state last_ms index (issue 11c) | 4: ns_key (issue 10) | query log + overlays (issue 11) | template index (issue 9); 6: all


def apply_schema(graph: GraphStore) -> int:
    """Create every constraint and index idempotently, migrating an older database; record and
    return the schema version."""
    _drop_outdated_fulltext(graph)
    graph.write_statements("schema", version=SCHEMA_VERSION)
    backfill_ns_key(graph)
    log.info("schema version %s applied", SCHEMA_VERSION)
    return SCHEMA_VERSION


def _drop_outdated_fulltext(graph: GraphStore) -> None:
    """Schema 4 indexes ``ns_key``; an index created by an older kgmem lacks it and is re-created."""
    rows = graph.read("schema_migrations/fulltext_properties")
    if rows and "ns_key" not in rows[0]["properties"]:
        log.info("re-creating full-text index kgmem_fulltext with ns_key (schema 4)")
        graph.write("schema_migrations/drop_fulltext")


def backfill_ns_key(graph: GraphStore, ns: str | None = None) -> None:
    """Nodes written before schema 4 (or imported from an older export) get their ``ns_key`` —
    of namespace ``ns``, or of every namespace — in batches; nodes that have it are not touched."""
    namespaces = [ns] if ns is not None else [r["ns"] for r in graph.read("schema_migrations/namespaces_without_key")]
    for name in namespaces:
        graph.write_autocommit("schema_migrations/backfill_ns_key", ns=name, ns_key=ns_key(name))


def schema_version(graph: GraphStore) -> int | None:
    """The schema version recorded in the graph, or None before `kgmem init`."""
    rows = graph.read("schema_version")
    return rows[0]["version"] if rows else None

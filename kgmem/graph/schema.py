"""Apply ``cypher/schema.cypher`` (constraints, indexes, schema version).

Two entry points: :func:`apply_schema` (``kgmem init``: always runs the idempotent file) and
:func:`ensure_schema`, the schema step of a client's first connect (:class:`kgmem.app.Engines`,
:class:`kgmem.AsyncKGMem` through it, ``kgmem up``): one read of the recorded version, and the file is
applied only when the graph has no schema yet or an older one.
"""

from __future__ import annotations

import logging

from neo4j.exceptions import ClientError

from kgmem.graph.store import UNREACHABLE, GraphStore
from kgmem.ids import ns_key

log = logging.getLogger(__name__)

# 11: forget tombstones' (ns, id) constraint and (ns, label) index |
# 10: knowledge valid_from / valid_until / recorded_at + SUPERSEDED_BY (backfilled by backfill_knowledge_time) |
# 9: Concept constraint + (ns, key) index | 8: query-log session index (late feedback) |
# 7: session-state last_ms index | 4: ns_key | query log + overlays | template index
SCHEMA_VERSION = 11


def apply_schema(graph: GraphStore) -> int:
    """Create every constraint and index idempotently, migrating an older database; record and
    return the schema version."""
    _drop_outdated_fulltext(graph)
    graph.write_statements("schema", version=SCHEMA_VERSION)
    backfill_ns_key(graph)
    backfill_knowledge_time(graph)
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


def backfill_knowledge_time(graph: GraphStore) -> None:
    """Knowledge written before schema 10 gets ``valid_from`` / ``recorded_at`` (its ``created_at``), and
    an item already ``CONTRADICTS``-linked is superseded by the newer item (``valid_until``, ``SUPERSEDED_BY``).
    Items that have their time are not touched."""
    graph.write_autocommit("schema_migrations/backfill_knowledge_time")
    graph.write_autocommit("schema_migrations/supersede_contradicted")


def schema_version(graph: GraphStore) -> int | None:
    """The schema version recorded in the graph, or None before `kgmem init`."""
    return version_of(graph.read("schema_version"))


def version_of(rows: list[dict]) -> int | None:
    """The version in the rows of ``cypher/schema_version.cypher`` (None: no schema recorded)."""
    return rows[0]["version"] if rows else None


def needs_schema(recorded: int | None) -> bool:
    """True when a graph recording ``recorded`` lacks part of this kgmem's schema. A newer version
    (recorded by a newer kgmem) is left alone: the file only ever adds indexes and constraints."""
    return recorded is None or recorded < SCHEMA_VERSION


def ensure_schema(graph: GraphStore) -> int | None:
    """The schema step of a first connect: read the recorded version once and apply the schema
    when it is missing or older. Returns the version the graph now records.

    Never raises into the caller's start-up for a server it cannot use yet: an unreachable Neo4j
    (None is returned; the next client to connect checks again, or run ``kgmem init``) or a user
    without schema privileges (the recorded version is returned; an admin runs ``kgmem init``) is
    logged as a warning. Concurrent first connects are safe: every statement is idempotent, and a
    lost race on an index being created is retried once.
    """
    try:
        recorded = schema_version(graph)
        if not needs_schema(recorded):
            return recorded
        log.info("graph schema %s, this kgmem needs %s: applying it", recorded, SCHEMA_VERSION)
        try:
            return apply_schema(graph)
        except ClientError as exc:
            if "Forbidden" in (exc.code or "") or "Security" in (exc.code or ""):
                log.warning(
                    "cannot apply the graph schema (%s): ask an admin to run `kgmem init`; "
                    "full-text search and error similarity need it",
                    exc.message,
                )
                return recorded
            log.info("applying the schema raced another client (%s); applying again", exc.code)
            return apply_schema(graph)
    except UNREACHABLE as exc:
        log.warning(
            "Neo4j unreachable, graph schema not checked (%s); it is checked when the next "
            "client connects, or run `kgmem init`",
            exc,
        )
        return None

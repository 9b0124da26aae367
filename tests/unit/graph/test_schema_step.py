"""When the first connect applies the schema (kgmem.graph.schema.needs_schema)."""

from __future__ import annotations

from kgmem.graph.schema import SCHEMA_VERSION, needs_schema, version_of


def test_missing_or_older_schema_is_applied_current_or_newer_is_left_alone() -> None:
    assert needs_schema(None)  # a database that never saw kgmem
    assert needs_schema(SCHEMA_VERSION - 1)
    assert not needs_schema(SCHEMA_VERSION)
    assert not needs_schema(SCHEMA_VERSION + 1)  # a newer kgmem's schema: never downgraded


def test_version_of_reads_the_schema_version_rows() -> None:
    assert version_of([]) is None
    assert version_of([{"version": 5}]) == 5

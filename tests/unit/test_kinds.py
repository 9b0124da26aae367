"""The kind registry is the one source every other table is derived from, and it is complete."""

from __future__ import annotations

import re

import pytest

from kgmem import cypher, kinds
from kgmem.maintenance.allowlist import NODE_LABELS, VECTOR_KINDS
from kgmem.retrieval.config import ALL_KINDS, KIND_LABELS
from kgmem.retrieval.keyword import LABEL_KINDS


def test_derived_tables_come_from_the_registry() -> None:
    assert KIND_LABELS is kinds.KIND_LABELS and LABEL_KINDS is kinds.LABEL_KINDS
    assert ALL_KINDS == tuple(k.name for k in kinds.KINDS)
    assert VECTOR_KINDS == {k.name: (k.label, k.text_property) for k in kinds.KINDS}
    assert {v: k for k, v in KIND_LABELS.items()} == LABEL_KINDS


@pytest.mark.parametrize("kind", kinds.KINDS, ids=lambda k: k.name)
def test_every_kind_is_exportable_reindexable_and_in_the_fulltext_index(kind: kinds.Kind) -> None:
    assert kind.label in NODE_LABELS  # export/import allow-list
    for step in ("nodes", "count", "done"):  # reindex reads and marks it
        assert cypher.load(f"maintenance/reindex/{kind.name}_{step}")
    schema = cypher.load("schema")
    labels = re.search(r"FOR \(n:([A-Za-z|]+)\)", schema.split("FULLTEXT INDEX kgmem_fulltext")[1]).group(1)
    assert kind.label in labels.split("|")


def test_metadata_and_embedding_text_are_chroma_ready() -> None:
    row = {
        "text": "hi",
        "role": "user",
        "session": "s",
        "ts": None,
        "tool": "t",
        "category": "c",
        "keys": None,
        "source": None,
        "error_id": "e",
        "type": "fact",
        "name": "x",
    }
    for kind in kinds.KINDS:
        meta = kind.metadata(row)
        assert all(isinstance(v, (str, int, float, bool)) for v in meta.values()), kind.name
    assert kinds.MESSAGE.embedding_text(row) == "user: hi" and kinds.FIX.embedding_text(row) == "hi"
    with pytest.raises(KeyError, match="known: message"):
        kinds.kind("nope")

"""Which item an old value said again lands on, whatever moment of another writer's commit the read saw.

Neo4j reads at read-committed: one read of the stored items can find the superseded 8080 item by its
text before another client's restatement of 8080 commits, and follow its successors after that commit,
so the 9090 value it sees is already ended. Both reads must plan the same restatement id, so the two
clients write one item (the integration test races real clients; this pins the plan down)."""

from __future__ import annotations

from typing import Any

import numpy as np

from kgmem.analysis.events import AnalysisStats
from kgmem.analysis.schema import ExtractedItem, normalise_text
from kgmem.analysis.store import KnowledgeStore, knowledge_id
from kgmem.config import AnalysisSettings
from kgmem.runner import run

OLD, NEW = "The ledger service port is 8080.", "The ledger service port is 9090."


class Graph:
    """The stored items a read finds; records what a write was asked to store."""

    def __init__(self, rows: list[dict[str, Any]]) -> None:
        self.rows = rows
        self.writes: list[dict[str, Any]] = []

    def read(self, name: str, **params: Any) -> list[dict[str, Any]]:
        if name == "analysis/find_knowledge":
            return [r for r in self.rows if r["norm"] in params["norms"]]
        return []  # nothing tombstoned

    def write(self, name: str, **params: Any) -> list[dict[str, Any]]:
        self.writes.append(params)
        return []


class Embedder:
    def embed(self, texts: list[str]) -> np.ndarray:
        return np.ones((len(texts), 4), dtype=np.float32) / 2.0


class NoNeighbours:
    def query(self, *args: Any, **kwargs: Any) -> list[Any]:
        return []


def stored(content: str, since: str, until: str | None, successors: list[dict[str, Any]] | None = None):
    return {
        "id": knowledge_id("ns", content),
        "norm": normalise_text(content),
        "content": content,
        "type": "fact",
        "is_active": True,
        "source_sessions": ["earlier"],
        "valid_from": since,
        "valid_until": until,
        "successors": successors or [],
    }


def restate(rows: list[dict[str, Any]], said_at: str) -> tuple[str, list[dict[str, str]]]:
    """Ingest OLD said at ``said_at`` over ``rows``: the id written and the contradictions."""
    graph = Graph(rows)
    store = KnowledgeStore(graph, NoNeighbours(), Embedder(), AnalysisSettings(), AnalysisStats())  # type: ignore[arg-type]
    item = ExtractedItem(type="fact", content=OLD, confidence=1.0)
    try:
        outcomes = run(store.apply_op("ns", "later", [item], "ingest", said_at=said_at), store.io)
    finally:
        store.io.close()
    (write,) = graph.writes
    assert [o.id for o in outcomes] == [r["id"] for r in write["rows"] if r["insert"]]
    return outcomes[0].id or "", write["contradictions"]


def test_a_read_that_saw_the_change_still_current_and_one_that_saw_it_ended_restate_into_one_item():
    changed = stored(NEW, "2026-05-01T09:00:00+00:00", None)
    before_commit = [stored(OLD, "2026-03-01T09:00:00+00:00", "2026-05-01T09:00:00+00:00", [changed])]
    ended = {**changed, "valid_until": "2026-06-01T09:00:00+00:00"}  # the other client's restatement
    mid_commit = [stored(OLD, "2026-03-01T09:00:00+00:00", "2026-05-01T09:00:00+00:00", [ended])]

    first, first_contradicts = restate(before_commit, "2026-06-01T09:00:00+00:00")
    second, _ = restate(mid_commit, "2026-06-02T09:00:00+00:00")

    assert first_contradicts == [{"new_id": first, "old_id": changed["id"]}]
    assert first not in (changed["id"], before_commit[0]["id"])
    assert second == first

"""Where an item a person adds lands when Chroma does not answer: found by its text, or a new item."""

from __future__ import annotations

from typing import Any

import numpy as np

from kgmem.analysis.events import AnalysisStats
from kgmem.analysis.store import KnowledgeStore, knowledge_id
from kgmem.config import AnalysisSettings
from kgmem.errors import VectorStoreUnavailable
from kgmem.runner import run


class Graph:
    def __init__(self, rows: list[dict[str, Any]]) -> None:
        self.rows = rows
        self.reads: list[tuple[str, dict[str, Any]]] = []

    def read(self, name: str, **params: Any) -> list[dict[str, Any]]:
        self.reads.append((name, params))
        return [r for r in self.rows if r["norm"] in params["norms"]]


class Embedder:
    def embed(self, texts: list[str]) -> np.ndarray:
        return np.ones((len(texts), 4), dtype=np.float32) / 2.0


class GoneChroma:
    def query(self, *args: Any, **kwargs: Any) -> Any:
        raise VectorStoreUnavailable("Chroma is gone")


def verdict(rows: list[dict[str, Any]], content: str):
    graph = Graph(rows)
    store = KnowledgeStore(graph, GoneChroma(), Embedder(), AnalysisSettings(), AnalysisStats())  # type: ignore[arg-type]
    try:
        return run(store.judge_manual_op("ns", "fact", content), store.io), graph
    finally:
        store.io.close()


def test_without_chroma_the_same_text_still_lands_on_the_stored_item():
    found, graph = verdict([{"id": "k1", "norm": "the port is 8080"}], "The port is 8080.")
    assert (found.id, found.merged, found.contradicts) == ("k1", True, ())
    assert graph.reads[-1][0] == "analysis/find_knowledge"


def test_without_chroma_another_text_is_a_new_item_unjudged():
    found, _ = verdict([{"id": "k1", "norm": "the port is 8080"}], "The port is 9090.")
    assert (found.id, found.merged, found.contradicts) == (knowledge_id("ns", "The port is 9090."), False, ())

"""The query log is written behind the searches, and searches that end while a log write is waiting
or running go into the next write together (one UNWIND statement), instead of a transaction each.
A write waits ``query_log_delay_ms`` for the searches after it; a flush cuts the wait short.

A stand-in graph holds the first write until released (the real statement runs against Neo4j in
tests/integration/retrieval/test_bqar.py and the feedback-from-another-process tests)."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import pytest

from kgmem.errors import ValidationError
from kgmem.retrieval.config import PRESETS
from kgmem.retrieval.service import RetrievalEngine
from kgmem.runner import SyncIO, run
from kgmem.vectors import VectorHit

FAST = PRESETS["fast"]


class Graph:
    def __init__(self) -> None:
        self.release = threading.Event()
        self.writes: list[dict[str, Any]] = []

    def read(self, name: str, **params: Any) -> list[dict[str, Any]]:
        assert name == "retrieval/keyword", name
        return [{"rows": [{"id": "m1", "label": "Message", "score": 1.0, "text": "a turn"}]}]

    def write(self, name: str, **params: Any) -> list[dict[str, Any]]:
        assert name == "retrieval/query_log", name
        self.release.wait(10)
        self.writes.append(params)
        return [{"written": len(params["entries"]), "pruned": 0}]


class Vectors:
    def query(
        self, ns: str, kind: str, vector: np.ndarray, n: int, where: Any = None, payload: bool = True
    ) -> list[VectorHit]:
        return [VectorHit("m1", 0.1, "a turn")] if kind == "message" else []


class Embedder:
    def embed_query(self, text: str) -> np.ndarray:
        return np.ones(4, dtype=np.float32)


def test_searches_ending_during_a_log_write_share_the_next_one() -> None:
    graph = Graph()
    engine = RetrievalEngine(query_log_delay_ms=0)
    io = SyncIO(graph, Vectors(), Embedder())
    try:
        ids = [run(engine.search_op(f"question {i}", "team", k=3, config=FAST), io).query_id for i in range(4)]
        graph.release.set()
        io.flush(10)
    finally:
        io.close()
    written = [[e["id"] for e in w["entries"]] for w in graph.writes]
    assert sorted(i for w in written for i in w) == sorted(ids)  # every search logged, once
    assert len(written) < len(ids)  # the searches after the first shared a write
    assert written[0] == ids[:1] or written[0] == ids[: len(written[0])]
    assert all(w["entries"][0]["ns"] == "team" and w["prune"] > 0 for w in graph.writes)


def test_searches_within_the_delay_share_one_write_and_a_flush_sends_it_at_once() -> None:
    graph = Graph()
    graph.release.set()
    # A minute's delay: the write below can only have happened because the flush woke it (the flush
    # waits 10 s at most, then the assertions find nothing written).
    engine = RetrievalEngine(query_log_delay_ms=60_000)
    io = SyncIO(graph, Vectors(), Embedder())
    try:
        ids = [run(engine.search_op(f"question {i}", "team", k=3, config=FAST), io).query_id for i in range(5)]
        assert graph.writes == []  # still waiting for more searches
        io.flush(10)  # the runner's flush wakes the waiting write (Background.wake)
        assert [[e["id"] for e in w["entries"]] for w in graph.writes] == [ids]  # one statement, every search
        later = run(engine.search_op("question 5", "team", k=3, config=FAST), io).query_id
        assert len(graph.writes) == 1  # the next write waits again
        io.flush(10)
        assert [e["id"] for e in graph.writes[1]["entries"]] == [later]
    finally:
        io.close()


@pytest.mark.parametrize("delay", [-1, 1.5, "1000", True])
def test_a_bad_delay_is_refused_by_name(delay: Any) -> None:
    with pytest.raises(ValidationError, match="query_log_delay_ms"):
        RetrievalEngine(query_log_delay_ms=delay)

"""The leg registry (kgmem/retrieval/legs.py): a leg registered in one place is searched, fused and,
when it fails, reported in ``failed_legs`` — under both runners (KGMem's and AsyncKGMem's).

Stand-in stores answer the requests (this tests the wiring and the arithmetic, not Neo4j or Chroma;
the real legs run against the real stack in tests/integration/retrieval)."""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np
import pytest

from kgmem.errors import ValidationError
from kgmem.retrieval import fusion
from kgmem.retrieval.config import SearchConfig
from kgmem.retrieval.legs import DEFAULT_LEGS, LegSpec, RetrievalLeg, check_registry
from kgmem.retrieval.scope import Scope
from kgmem.retrieval.service import RetrievalEngine
from kgmem.retrieval.types import Candidate, SearchResult
from kgmem.runner import AsyncIO, Op, Read, SyncIO, arun, run
from kgmem.vectors import VectorHit

KEYWORD_ROWS = [
    {"id": "k1", "label": "Message", "score": 3.0, "text": "keyword only", "session": "s", "role": "user"},
    {"id": "shared", "label": "Message", "score": 2.0, "text": "found by every leg", "session": "s", "role": "user"},
]
VECTOR_HITS = [VectorHit("v1", 0.1, "vector only", {"session": "s"}), VectorHit("shared", 0.2, "found by every leg")]
TOY_ROWS = [{"id": "t1", "text": "toy only"}, {"id": "shared", "text": "found by every leg"}]


class Graph:
    """Answers the keyword leg's and the toy leg's reads; records writes (the query log)."""

    def __init__(self, toy_error: Exception | None = None) -> None:
        self.toy_error = toy_error
        self.writes: list[str] = []

    def read(self, name: str, **params: Any) -> list[dict[str, Any]]:
        if name == "retrieval/keyword":
            return [{"rows": KEYWORD_ROWS}]  # one row holding the candidates (keyword.cypher)
        if name == "toy/recent":
            if self.toy_error is not None:
                raise self.toy_error
            return TOY_ROWS
        raise AssertionError(f"unexpected read {name}")

    def write(self, name: str, **params: Any) -> list[dict[str, Any]]:
        self.writes.append(name)
        return []


class Vectors:
    def query(
        self, ns: str, kind: str, vector: np.ndarray, n: int, where: Any = None, payload: bool = True
    ) -> list[VectorHit]:
        return VECTOR_HITS if kind == "message" else []


class Embedder:
    def embed_query(self, text: str) -> np.ndarray:
        return np.ones(4, dtype=np.float32)


class AsyncGraph(Graph):
    async def read(self, name: str, **params: Any) -> list[dict[str, Any]]:  # type: ignore[override]
        return Graph.read(self, name, **params)

    async def write(self, name: str, **params: Any) -> list[dict[str, Any]]:  # type: ignore[override]
        return Graph.write(self, name, **params)


class AsyncVectors(Vectors):
    async def query(self, *args: Any, **kwargs: Any) -> list[VectorHit]:  # type: ignore[override]
        return Vectors.query(self, *args, **kwargs)


class RecentLeg:
    """A toy third leg: one read of its own Cypher, candidates in row order."""

    name = "recent"

    def __init__(self, config: SearchConfig) -> None:
        self.config = config

    def candidates(self, query: str, scope: Scope) -> Op[list[Candidate]]:
        rows = yield Read("toy/recent", {"ns": scope.ns, "n": scope.k})
        return [
            Candidate(id=r["id"], kind="message", rank=i, score=1.0 / i, text=r["text"], explain={"age": i})
            for i, r in enumerate(rows, start=1)
        ]


RECENT = LegSpec("recent", RecentLeg, enabled=lambda c: True, weight=lambda c: 0.5)
FAST = "fast"  # legs + fusion only: no traversal, so no expansion read


def _search_both(
    legs: tuple[LegSpec, ...], toy_error: Exception | None = None, preset: str = FAST
) -> list[SearchResult]:
    """The same search through KGMem's runner and AsyncKGMem's; both results."""
    engine = RetrievalEngine(preset, legs=legs)
    sync_graph = Graph(toy_error)
    io = SyncIO(sync_graph, Vectors(), Embedder())
    try:
        sync_result = run(engine.search_op("what happened", "team", k=5), io)
    finally:
        io.close()
    assert sync_graph.writes == ["retrieval/query_log"]

    async def main() -> SearchResult:
        aio = AsyncIO(AsyncGraph(toy_error), AsyncVectors(), Embedder())
        try:
            return await arun(engine.search_op("what happened", "team", k=5), aio)
        finally:
            await aio.close()

    return [sync_result, asyncio.run(main())]


def test_the_default_legs_satisfy_the_protocol() -> None:
    config = SearchConfig()
    assert [spec.name for spec in DEFAULT_LEGS] == ["vector", "keyword"]
    assert all(isinstance(spec.build(config), RetrievalLeg) for spec in DEFAULT_LEGS)
    assert isinstance(RecentLeg(config), RetrievalLeg)


def test_a_leg_registered_in_one_place_is_searched_and_fused_by_both_runners() -> None:
    for result in _search_both((*DEFAULT_LEGS, RECENT)):
        by_id = {h.id: h for h in result.hits}
        assert not result.failed_legs
        assert by_id["t1"].provenance.legs == ("recent",)  # only the new leg found it, and it is in the hits
        shared = by_id["shared"]
        assert shared.provenance.legs == ("vector", "keyword", "recent")
        k = SearchConfig().rrf_k
        expected = {
            "vector": fusion.rrf_term(2, 0.3, k),
            "keyword": fusion.rrf_term(2, 0.7, k),
            "recent": fusion.rrf_term(2, 0.5, k),
        }
        assert {leg: shared.breakdown[leg] for leg in expected} == pytest.approx(expected)
        assert shared.score == pytest.approx(sum(expected.values()))
        # Each leg's own figures reach the breakdown (Candidate.explain), whatever the leg.
        assert shared.breakdown["distance"] == pytest.approx(0.2) and shared.breakdown["bm25"] == 2.0
        assert shared.breakdown["age"] == 2
        assert [h.id for h in result.hits] == ["shared", "k1", "t1", "v1"]


def test_without_the_registration_the_toy_legs_items_are_absent() -> None:
    for result in _search_both(DEFAULT_LEGS):
        assert {h.id for h in result.hits} == {"shared", "k1", "v1"}
        assert "recent" not in result.hits[0].breakdown


def test_a_failing_extra_leg_lands_in_failed_legs_and_the_others_answer() -> None:
    for result in _search_both((*DEFAULT_LEGS, RECENT), toy_error=RuntimeError("toy index offline")):
        assert set(result.failed_legs) == {"recent"}
        assert "toy index offline" in result.failed_legs["recent"]
        assert {h.id for h in result.hits} == {"shared", "k1", "v1"}


def test_a_leg_rejecting_its_input_is_not_an_outage() -> None:
    with pytest.raises(ValidationError, match="bad toy input"):
        _search_both((*DEFAULT_LEGS, RECENT), toy_error=ValidationError("bad toy input"))


def test_a_leg_alone_is_the_single_leg_strategy() -> None:
    for result in _search_both((RECENT,)):
        assert [h.id for h in result.hits] == ["t1", "shared"]
        assert result.hits[0].breakdown == {"recent": 1.0} and result.hits[0].provenance.legs == ("recent",)


def test_a_registry_needs_unique_names_and_a_config_needs_a_leg() -> None:
    with pytest.raises(ValueError, match="unique"):
        check_registry((RECENT, RECENT))
    with pytest.raises(ValueError, match="graph"):
        check_registry((LegSpec("graph", RecentLeg, lambda c: True, lambda c: 1.0),))
    off = LegSpec("recent", RecentLeg, enabled=lambda c: False, weight=lambda c: 0.5)
    with pytest.raises(ValidationError, match="enables no retrieval leg"):
        run(RetrievalEngine(FAST, legs=(off,)).search_op("q", "team"), SyncIO(Graph(), None, None))

"""What the legs are asked to return (``Scope.payload``): Graph RAG hydrates every hit from Neo4j, so
its legs ask Chroma for ids and distances and the full-text read for ids and scores — unless it picks
seeds by their text first (a question naming two entities, the concept hop), or a session search
filters Chroma's hits by their metadata. Strategies without the hydration read keep the payload.

Stand-in stores record the requests (the real legs run against the real stack in
tests/integration/retrieval/test_search.py)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from kgmem.retrieval.config import PRESETS
from kgmem.retrieval.service import RetrievalEngine
from kgmem.runner import SyncIO, run
from kgmem.vectors import VectorHit

PROPS = dict(ts=None, confidence=None, alpha=None, beta=None, updated_at=None, last_used=None,
             v_alpha=None, v_beta=None, tool=None)
NODES = {
    "m1": dict(text="Jon opened a dance studio", ref="D1:1", session="s1", role="Jon", seq=0),
    "m2": dict(text="Gina lost her job at Door Dash", ref="D1:2", session="s1", role="Gina", seq=1),
}


def _rows(seeds: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"id": s["id"], "label": s["label"], "active": True, "expanded": [], **PROPS, **NODES[s["id"]]}
            for s in seeds]


class Graph:
    """Answers the keyword, expansion and combined reads; records each read's parameters.

    ``retrieval/search_expand`` (keyword leg + fusion + expansion in one statement) is answered with
    the head the statement would pick (the keyword hit m2 outranks the vector hit m1), or with
    ``wrong_head`` (a statement that picked another head: the engine must read the expansion again)."""

    def __init__(self, wrong_head: bool = False) -> None:
        self.reads: dict[str, dict[str, Any]] = {}
        self.wrong_head = wrong_head

    def read(self, name: str, **params: Any) -> list[dict[str, Any]]:
        self.reads[name] = params
        kw = {"id": "m2", "label": "Message", "score": 2.0}
        if name == "retrieval/keyword":
            return [{"rows": [{**kw, **NODES["m2"]}] if params["payload"] else [kw]}]
        if name == "retrieval/expand":
            return [{"rows": _rows(params["seeds"]), "hop": []}]
        if name == "retrieval/search_expand":
            order = ["m1", "m2"] if self.wrong_head else ["m2", *(p["id"] for p in params["pre"])]
            seeds = [{"id": i, "label": "Message", "expand": n < params["expand"]} for n, i in enumerate(order)]
            return [{"kw": [kw], "head": order, "expanded": order[: params["expand"]], "rows": _rows(seeds)}]
        if name == "retrieval/session_state":
            return []
        raise AssertionError(f"unexpected read {name}")

    def write(self, name: str, **params: Any) -> list[dict[str, Any]]:
        return []


class Vectors:
    """Chroma's answer with or without documents and metadata, as ``VectorStore.query`` gives it."""

    def __init__(self) -> None:
        self.payloads: list[bool] = []

    def query(self, ns: str, kind: str, vector: np.ndarray, n: int, where: Any = None,
              payload: bool = True) -> list[VectorHit]:
        if kind != "message":
            return []
        self.payloads.append(payload)
        node = NODES["m1"]
        meta = {"session": node["session"], "ref": node["ref"], "role": node["role"], "seq": node["seq"]}
        return [VectorHit("m1", 0.2, node["text"] if payload else None, meta if payload else {})]


class Embedder:
    def embed_query(self, text: str) -> np.ndarray:
        return np.ones(4, dtype=np.float32)


class Concepts:
    def extract(self, text: str) -> list[Any]:
        return []


def search(query: str, preset: str = "balanced", session: str | None = None, wrong_head: bool = False,
           **overrides: Any):
    graph, vectors = Graph(wrong_head), Vectors()
    engine = RetrievalEngine(concepts=Concepts())  # type: ignore[arg-type]
    cfg = PRESETS[preset].with_overrides(**overrides)
    io = SyncIO(graph, vectors, Embedder())
    try:
        result = run(engine.search_op(query, "team", k=5, session=session, config=cfg), io)
    finally:
        io.close()
    return result, graph, vectors


def test_graph_rag_asks_the_legs_for_ids_and_scores_and_shows_what_it_hydrated() -> None:
    result, graph, vectors = search("What did Jon open?")
    assert vectors.payloads == [False]
    # One statement runs the keyword leg, fuses and expands: no separate keyword or expansion read.
    assert set(graph.reads) == {"retrieval/search_expand"}
    assert graph.reads["retrieval/search_expand"]["pre"] == [
        {"id": "m1", "label": "Message", "score": pytest.approx(0.3 / 11), "vrank": 1}]
    by_id = {h.id: h for h in result.hits}
    assert set(by_id) == {"m1", "m2"}
    for item_id, hit in by_id.items():
        node = NODES[item_id]
        assert (hit.text, hit.ref, hit.session, hit.metadata["role"], hit.metadata["seq"]) == (
            node["text"], node["ref"], node["session"], node["role"], node["seq"])


def test_a_question_naming_two_entities_keeps_the_payload_for_its_entity_seeds() -> None:
    _, graph, vectors = search("Did Jon and Gina both lose their jobs?")
    assert vectors.payloads == [True]
    assert graph.reads["retrieval/keyword"]["payload"] is True


def test_the_concept_hop_keeps_the_payload_for_its_seeds() -> None:
    _, graph, vectors = search("What did Jon open?", concept_hop=True)
    assert vectors.payloads == [True]
    assert graph.reads["retrieval/keyword"]["payload"] is True


def test_a_session_search_reads_the_metadata_it_filters_turns_by() -> None:
    result, graph, vectors = search("What did Jon open?", session="s1")
    assert vectors.payloads == [True]
    assert graph.reads["retrieval/search_expand"]["session"] == "s1"
    assert {h.id for h in result.hits} == {"m1", "m2"}


def test_a_statement_that_picked_another_head_is_read_again_with_the_same_hits() -> None:
    one_trip, graph, _ = search("What did Jon open?")
    again, graph_again, _ = search("What did Jon open?", wrong_head=True)
    assert "retrieval/expand" not in graph.reads
    assert [s["id"] for s in graph_again.reads["retrieval/expand"]["seeds"] if s["expand"]] == ["m2"]
    assert [(h.id, h.score, h.text) for h in again.hits] == [(h.id, h.score, h.text) for h in one_trip.hits]


def test_strategies_without_hydration_keep_the_payload() -> None:
    result, graph, vectors = search("What did Jon open?", preset="fast")
    assert vectors.payloads == [True]
    assert graph.reads["retrieval/keyword"]["payload"] is True
    assert "retrieval/expand" not in graph.reads
    assert {h.id: h.text for h in result.hits} == {i: n["text"] for i, n in NODES.items()}

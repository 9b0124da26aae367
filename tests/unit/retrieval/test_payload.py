"""What the legs are asked to return (``Scope.payload``): Graph RAG hydrates every hit from Neo4j, so
its legs ask Chroma for ids and distances and the full-text read for ids and scores — unless it picks
seeds by their text first (the concept hop), or a session search filters Chroma's hits by their
metadata. A question's entity seeds are picked by the expansion read itself. Strategies without the
hydration read keep the payload.

Stand-in stores record the requests (the real legs run against the real stack in
tests/integration/retrieval/test_search.py)."""

from __future__ import annotations

from typing import Any

import numpy as np

from kgmem.retrieval.config import PRESETS
from kgmem.retrieval.service import RetrievalEngine
from kgmem.runner import SyncIO, run
from kgmem.vectors import VectorHit

PROPS = dict(
    ts=None,
    confidence=None,
    alpha=None,
    beta=None,
    updated_at=None,
    last_used=None,
    v_alpha=None,
    v_beta=None,
    tool=None,
)
NODES = {
    "m1": dict(text="Jon opened a dance studio", ref="D1:1", session="s1", role="Jon", seq=0),
    "m2": dict(text="Gina lost her job at Door Dash", ref="D1:2", session="s1", role="Gina", seq=1),
}


class Graph:
    """Answers the keyword, expansion and concept-hop reads; records each read's parameters."""

    def __init__(self) -> None:
        self.reads: dict[str, dict[str, Any]] = {}

    def read(self, name: str, **params: Any) -> list[dict[str, Any]]:
        self.reads[name] = params
        if name == "retrieval/keyword":
            full = [{"id": "m2", "label": "Message", "score": 2.0, **NODES["m2"]}]
            return [{"rows": full if params["payload"] else [{"id": "m2", "label": "Message", "score": 2.0}]}]
        if name == "retrieval/expand":
            return [
                {
                    "rows": [
                        {
                            "id": s["id"],
                            "label": s["label"],
                            "active": True,
                            "expand": s["expand"],
                            "expanded": [],
                            **PROPS,
                            **NODES[s["id"]],
                        }
                        for s in params["seeds"]
                    ]
                }
            ]
        if name in ("retrieval/concept_hop", "retrieval/session_state"):
            return []
        raise AssertionError(f"unexpected read {name}")

    def write(self, name: str, **params: Any) -> list[dict[str, Any]]:
        return []


class Vectors:
    """Chroma's answer with or without documents and metadata, as ``VectorStore.query`` gives it."""

    def __init__(self) -> None:
        self.payloads: list[bool] = []

    def query(
        self, ns: str, kind: str, vector: np.ndarray, n: int, where: Any = None, payload: bool = True
    ) -> list[VectorHit]:
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


def search(query: str, preset: str = "balanced", session: str | None = None, **overrides: Any):
    graph, vectors = Graph(), Vectors()
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
    assert graph.reads["retrieval/keyword"]["payload"] is False
    by_id = {h.id: h for h in result.hits}
    assert set(by_id) == {"m1", "m2"}
    for item_id, hit in by_id.items():
        node = NODES[item_id]
        assert (hit.text, hit.ref, hit.session, hit.metadata["role"], hit.metadata["seq"]) == (
            node["text"],
            node["ref"],
            node["session"],
            node["role"],
            node["seq"],
        )


def test_a_question_naming_two_entities_has_the_expansion_read_pick_its_entity_seeds() -> None:
    _, graph, vectors = search("Did Jon and Gina both lose their jobs?")
    assert vectors.payloads == [False]
    assert graph.reads["retrieval/keyword"]["payload"] is False
    expand = graph.reads["retrieval/expand"]
    assert expand["names"] == ["jon", "gina"]
    assert sorted(expand["pool_rank"].values()) == list(range(len(expand["pool_rank"])))
    assert set(expand["pool_rank"]) == {s["id"] for s in expand["seeds"]}


def test_a_question_naming_one_entity_picks_no_entity_seeds() -> None:
    _, graph, _ = search("What did Jon open?")
    assert graph.reads["retrieval/expand"]["names"] == []
    assert graph.reads["retrieval/expand"]["pool_rank"] == {}


def test_the_concept_hop_keeps_the_payload_for_its_seeds() -> None:
    _, graph, vectors = search("What did Jon open?", concept_hop=True)
    assert vectors.payloads == [True]
    assert graph.reads["retrieval/keyword"]["payload"] is True


def test_a_session_search_reads_the_metadata_it_filters_turns_by() -> None:
    result, graph, vectors = search("What did Jon open?", session="s1")
    assert vectors.payloads == [True]
    assert graph.reads["retrieval/keyword"]["payload"] is False
    assert {h.id for h in result.hits} == {"m1", "m2"}


def test_strategies_without_hydration_keep_the_payload() -> None:
    result, graph, vectors = search("What did Jon open?", preset="fast")
    assert vectors.payloads == [True]
    assert graph.reads["retrieval/keyword"]["payload"] is True
    assert "retrieval/expand" not in graph.reads
    assert {h.id: h.text for h in result.hits} == {i: n["text"] for i, n in NODES.items()}


class RecordingConcepts(Concepts):
    def __init__(self) -> None:
        self.texts: list[str] = []

    def extract(self, text: str) -> list[Any]:
        self.texts.append(text)
        return []


def test_the_concept_hop_takes_the_questions_names_without_the_nlp_pass_when_told() -> None:
    for mode, calls in (("nlp", ["What did Jon open?"]), ("names", [])):
        concepts = RecordingConcepts()
        io = SyncIO(Graph(), Vectors(), Embedder())
        cfg = PRESETS["balanced"].with_overrides(concept_hop=True, concept_query_concepts=mode)
        try:
            run(RetrievalEngine(concepts=concepts).search_op("What did Jon open?", "team", k=5, config=cfg), io)  # type: ignore[arg-type]
        finally:
            io.close()
        assert concepts.texts == calls, mode

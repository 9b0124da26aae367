"""Search with the int8 MiniLM end to end (real Neo4j, Chroma, model), and switching models.

Switching ``[embedding] model`` under existing vectors must fail with a clear error, not mix
vectors of two models; ``reindex`` rebuilds the collections with the configured model.
"""

from __future__ import annotations

import numpy as np
import pytest

from kgmem import KGMem
from kgmem.conversation import Turn
from kgmem.errors import EmbeddingModelMismatch
from kgmem.maintenance import reindex
from kgmem.retrieval import PRESETS
from kgmem.vectors import Embedder

TURNS = [
    ("s1", "user", "My automobile would not start this morning, the battery seemed dead.", "c1"),
    ("s1", "assistant", "Jump-start it with cables from another vehicle, then charge it.", "c2"),
    ("s1", "user", "I feel really anxious before presenting to a large audience.", "c3"),
    ("s1", "assistant", "The cafeteria serves soup on Mondays and Thursdays.", "c4"),
    ("s1", "user", "Invoices for the Zorblatt account go to the finance mailbox.", "c5"),
    ("s1", "assistant", "The printer on floor three needs new toner cartridges.", "c6"),
]
# Paraphrases sharing no content word with their answer: only the dense leg can find them.
QUESTIONS = {"my car broke down": "c1", "nervous about speaking in public": "c3"}


@pytest.fixture(scope="module")
def int8_embedder(base_settings):
    settings = base_settings.model_copy(
        update={"embedding": base_settings.embedding.model_copy(update={"model": "minilm-int8"})}
    )
    return Embedder(settings.embedding, settings.models_dir)


def _with_model(settings, model: str):
    return settings.model_copy(update={"embedding": settings.embedding.model_copy(update={"model": model})})


def test_int8_vectors_are_close_to_fp32_ones(int8_embedder, embedder) -> None:
    texts = [t for _, _, t, _ in TURNS]
    ours, fp32 = int8_embedder.embed(texts), embedder.embed(texts)
    assert int8_embedder.backend == "onnx-int8" and ours.shape == fp32.shape
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    assert float(np.min(np.sum(ours * fp32, axis=1))) > 0.97  # same model, quantised weights


def test_search_with_int8_then_switching_models_needs_a_reindex(settings, driver, embedder, int8_embedder, ns) -> None:
    with KGMem(_with_model(settings, "minilm-int8"), driver=driver, embedder=int8_embedder) as mem:
        mem.turns.record(ns, [Turn(s, r, t, ref) for s, r, t, ref in TURNS])
        for query, ref in QUESTIONS.items():
            hits = mem.retrieval.search(query, ns, k=2, config=PRESETS["balanced"]).hits
            assert ref in [h.ref for h in hits], query
        dense = mem.vectors.query(ns, "message", int8_embedder.embed_query("my car broke down"), 1)
        assert dense and dense[0].metadata  # the int8 vectors are what Chroma holds

    # Same Chroma, fp32 model configured: a clear error instead of comparing across models.
    with KGMem(_with_model(settings, "minilm"), driver=driver, embedder=embedder) as mem:
        with pytest.raises(EmbeddingModelMismatch, match="kgmem reindex"):
            mem.retrieval.search("my car broke down", ns, k=2, config=PRESETS["balanced"])
        with pytest.raises(EmbeddingModelMismatch):  # a repair cannot keep the other model's vectors
            reindex(mem.graph, mem.vectors, mem.embedder, ns, missing_only=True)
        summary = reindex(mem.graph, mem.vectors, mem.embedder, ns)
        assert summary.kinds["message"].embedded == len(TURNS)
        hits = mem.retrieval.search("my car broke down", ns, k=2, config=PRESETS["balanced"]).hits
        assert "c1" in [h.ref for h in hits]
        coll = mem.vectors.collection(ns, "message", create=False)
        assert coll.metadata["kgmem_model"] == "minilm"

"""The real model and a real embedded Chroma: normalised batches, the query cache, per-namespace collections."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from kgmem.vectors import Embedder, VectorStore, open_chroma
from kgmem.vectors.store import MISSING_TTL_S, collection_name


def test_embeddings_are_normalised_batched_and_meaningful(embedder: Embedder) -> None:
    texts = ["connection refused on port 5432", "could not connect: connection refused", "my cat likes tuna"]
    vectors = embedder.embed(texts)
    assert vectors.shape == (3, embedder.dim) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    related, unrelated = float(vectors[0] @ vectors[1]), float(vectors[0] @ vectors[2])
    assert related > unrelated + 0.3
    # one-by-one gives the same vectors as the batch
    assert np.allclose(embedder.embed([texts[2]])[0], vectors[2], atol=1e-4)
    assert embedder.embed([]).shape == (0, embedder.dim)


def test_query_cache_returns_the_same_vector(embedder: Embedder) -> None:
    first = embedder.embed_query("a query worth caching")
    assert embedder.embed_query("a query worth caching") is first


def test_namespaces_and_kinds_do_not_see_each_other(settings, tmp_path: Path, embedder: Embedder) -> None:
    store = VectorStore(open_chroma(settings))
    vec = embedder.embed(["disk full on /var", "permission denied writing file"])
    store.upsert(
        "ns-a", "error", ["a1", "a2"], vec, ["disk full", "permission denied"], [{"tool": "sh"}, {"tool": "sh"}]
    )
    store.upsert("ns-b", "error", ["b1"], vec[:1], ["disk full"], [{"tool": "sh", "none": None}])  # None dropped
    hits = store.query("ns-a", "error", vec[0], 5)
    assert [h.id for h in hits] == ["a1", "a2"] and hits[0].distance < 1e-4 and hits[0].metadata == {"tool": "sh"}
    assert [h.id for h in store.query("ns-b", "error", vec[0], 5)] == ["b1"]
    assert store.query("ns-a", "fix", vec[0], 5) == []  # kind never written
    store.upsert("ns-a", "error", ["a1"], vec[1:], ["replaced"], None)  # upsert by id: no duplicate
    assert store.count("ns-a", "error") == 2
    assert collection_name("ns a/ü", "error") != collection_name("ns-a", "error")
    store.drop_namespace("ns-a", ("error",))
    assert store.count("ns-a", "error") == 0 and store.count("ns-b", "error") == 1


class _CountingClient:
    """The real Chroma client, counting the collection look-ups that reach it."""

    def __init__(self, client) -> None:  # noqa: ANN001 - a chromadb client
        self.client, self.lookups = client, 0

    def get_collection(self, *args, **kwargs):  # noqa: ANN002, ANN003, ANN201
        self.lookups += 1
        return self.client.get_collection(*args, **kwargs)

    def __getattr__(self, name: str):  # noqa: ANN204
        return getattr(self.client, name)


def test_a_missing_collection_is_asked_for_once_until_written_or_the_ttl_ends(settings, embedder: Embedder) -> None:
    client = _CountingClient(open_chroma(settings))
    store, other = VectorStore(client), VectorStore(client)  # `other`: another process's store
    vec = embedder.embed(["disk full on /var"])
    assert store.query("ns-miss", "fix", vec[0], 5) == [] and store.query("ns-miss", "fix", vec[0], 5) == []
    assert client.lookups == 1  # the second search did not ask Chroma again
    assert other.query("ns-miss", "fix", vec[0], 5) == []
    store.upsert("ns-miss", "fix", ["f1"], vec, ["free space"], None)  # this store's write: seen at once
    assert [h.id for h in store.query("ns-miss", "fix", vec[0], 5)] == ["f1"]
    time.sleep(MISSING_TTL_S + 0.1)  # the other store asks Chroma again once its answer has expired
    assert [h.id for h in other.query("ns-miss", "fix", vec[0], 5)] == ["f1"]

"""reindex restores deleted vectors (and search results); decay lowers stale items once."""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import pytest

from kgmem.maintenance import reindex, run_decay


def test_reindex_after_deleting_vectors_restores_search(analyst) -> None:
    mem, fx = analyst
    ns = mem.namespace
    # the fixture's four knowledge items were written without vectors: repair them first
    first = reindex(mem.graph, mem.vectors, mem.embedder, ns, missing_only=True)
    assert first.kinds["knowledge"].repaired == 4 and first.kinds["error"].repaired == 0
    query = mem.embedder.embed_query("the command timed out")
    before = [h.id for h in mem.vectors.query(ns, "error", query, 4)]
    assert fx.ids["timeout1"] in before[:2]
    search_before = [h.id for h in mem.search("timed out", k=5)]
    written = {
        **mem.vectors.get(ns, "error", [fx.ids["timeout1"]]),
        **mem.vectors.get(ns, "message", [fx.ids["msg"]]),
        **mem.vectors.get(ns, "knowledge", [fx.ids["manual"]]),
    }
    assert len(written) == 3

    # lose vectors: two error vectors and one message vector vanish from Chroma
    mem.vectors.delete(ns, "error", [fx.ids["timeout1"], fx.ids["perm"]])
    mem.vectors.delete(ns, "message", [fx.ids["msg"]])
    mem.vectors.delete(ns, "knowledge", [fx.ids["manual"]])
    assert fx.ids["timeout1"] not in [h.id for h in mem.vectors.query(ns, "error", query, 4)]
    assert [h.id for h in mem.search("timed out", k=5)] != search_before

    summary = reindex(mem.graph, mem.vectors, mem.embedder, ns, missing_only=True)
    assert summary.kinds["error"].repaired == 2 and summary.kinds["error"].embedded == 2
    assert summary.kinds["message"].repaired == 1
    assert summary.kinds["knowledge"].repaired == 1
    assert [h.id for h in mem.vectors.query(ns, "error", query, 4)] == before
    # the same text as the writers embedded: the same vectors come back
    restored = {
        **mem.vectors.get(ns, "error", [fx.ids["timeout1"]]),
        **mem.vectors.get(ns, "message", [fx.ids["msg"]]),
        **mem.vectors.get(ns, "knowledge", [fx.ids["manual"]]),
    }
    for key, vec in written.items():
        assert np.allclose(restored[key], vec, atol=1e-5), key
    assert [h.id for h in mem.search("timed out", k=5)] == search_before
    health = {
        r["name"]: r["vector_pending"] for r in mem.graph.read("reports/graph_health", ns=ns) if r["kind"] == "node"
    }
    assert health["Knowledge"] == 0

    # a full rebuild drops vectors whose node is gone and re-embeds everything
    mem.vectors.upsert(ns, "error", ["ghost"], mem.embedder.embed(["ghost"]), ["ghost"], [{"tool": "x"}])
    full = reindex(mem.graph, mem.vectors, mem.embedder, ns)
    assert full.kinds["error"].removed == 1 and full.kinds["error"].embedded == 4 and full.repaired == 0
    assert mem.vectors.count(ns, "error") == 4


def knowledge(mem, ns):  # type: ignore[no-untyped-def]
    return {k["id"]: k["confidence"] for k in mem.learnings(include_inactive=True, ns=ns)}


def test_decay_lowers_stale_knowledge_once_and_leaves_manual(analyst) -> None:
    mem, fx = analyst
    ns = mem.namespace
    before = knowledge(mem, ns)
    result = run_decay(mem.graph, ns, now=fx.now + timedelta(seconds=1))
    after = knowledge(mem, ns)
    assert result.knowledge_decayed == 1
    assert after[fx.ids["k3"]] == pytest.approx(0.55 * 0.5 ** (30 / 90), abs=1e-4)
    for key in ("k1", "k2", "k4", "manual"):
        assert after[fx.ids[key]] == before[fx.ids[key]], key
    run_decay(mem.graph, ns, now=fx.now + timedelta(seconds=1))
    assert knowledge(mem, ns) == after  # the same run again changes nothing
    # thirty days later k3 has decayed by another 30 days' worth, whatever the run frequency
    run_decay(mem.graph, ns, now=fx.now + timedelta(days=15))
    run_decay(mem.graph, ns, now=fx.now + timedelta(days=30, seconds=1))
    assert knowledge(mem, ns)[fx.ids["k3"]] == pytest.approx(0.55 * 0.5 ** (60 / 90), abs=1e-4)

"""KnowledgeStore edge cases on the real stack: exact-text dedup, in-batch dedup, removed items,
conflicting triples, and the graph/Chroma write order."""

from __future__ import annotations

import pytest

from kgmem.analysis import ExtractedItem


def fact(content, **kw):
    return ExtractedItem(type=kw.pop("type", "fact"), content=content, confidence=kw.pop("confidence", 0.8), **kw)


def test_exact_duplicate_never_depends_on_the_threshold(make_mem, q):
    mem = make_mem(offline=True, dedup_cosine=1.0)  # vectors alone would never merge
    store = mem.analysis.store
    first = store.apply(mem.namespace, "s1", [fact("The build uses Gradle.")], "llm")
    again = store.apply(mem.namespace, "s2", [fact("  the BUILD uses   gradle ")], "llm")
    assert [o.action for o in first] == ["inserted"] and [o.action for o in again] == ["merged"]
    assert again[0].id == first[0].id and again[0].new_confidence == pytest.approx(0.59)
    assert q("MATCH (k:Knowledge {ns: $ns}) RETURN count(k) AS n")[0]["n"] == 1


def test_paraphrases_in_one_batch_become_one_item(make_mem):
    mem = make_mem(offline=True)
    out = mem.analysis.store.apply(mem.namespace, "s", [
        fact("The staging database runs on port 5432"),
        fact("The staging database listens on port 5432"),
        fact("The user prefers tabs over spaces", type="preference"),
    ], "llm")
    assert [o.action for o in out] == ["inserted", "merged", "inserted"]
    assert out[1].id == out[0].id
    (db,) = [i for i in mem.learnings() if "staging database" in i["content"]]
    assert db["times_seen"] == 2 and db["confidence"] == pytest.approx(0.5)  # same session: no boost


def test_removed_items_are_not_relearnt(make_mem):
    mem = make_mem(offline=True)
    store, ns = mem.analysis.store, mem.namespace
    (ins,) = store.apply(ns, "s1", [fact("The staging database runs on port 5432")], "llm")
    mem.analysis.curator.remove(ns, ins.id)
    out = store.apply(ns, "s2", [fact("The staging database runs on port 5432"),
                                 fact("The staging database listens on port 5432")], "llm")
    assert [(o.action, o.reason) for o in out] == [("skipped", "removed"), ("skipped", "removed")]
    assert mem.learnings() == [] and len(mem.learnings(include_inactive=True)) == 1
    assert mem.analysis_stats()["skipped"] == 2


def test_near_duplicate_with_another_object_is_a_different_fact(make_mem):
    mem = make_mem(offline=True, dedup_cosine=0.5)  # make the two sentences "near duplicates"
    store, ns = mem.analysis.store, mem.namespace
    triple = {"subject": "deploy target", "predicate": "is"}
    store.apply(ns, "s1", [fact("The deploy target is production", object="production", **triple)], "llm")
    out = store.apply(ns, "s2", [fact("The deploy target is staging", object="staging", **triple)], "llm")
    assert out[0].action == "inserted"
    assert len(mem.learnings()) == 2


def test_contradicting_an_unknown_item_is_a_plain_insert(make_mem):
    mem = make_mem(offline=True)
    out = mem.analysis.store.apply(mem.namespace, "s", [
        fact("Tests run with pytest", contradicts="Something never stored anywhere at all")], "llm")
    assert [o.action for o in out] == ["inserted"] and out[0].contradicted_id is None


def test_writes_go_to_graph_then_chroma(make_mem, q, ns):
    mem = make_mem(offline=True)
    (o,) = mem.analysis.store.apply(ns, "s", [fact("Redis caches sessions", subject="Redis", predicate="caches",
                                                   object="sessions")], "llm")
    assert q("MATCH (k:Knowledge {ns: $ns, id: $id}) RETURN k.vector_pending AS p", id=o.id) == [{"p": False}]
    hits = mem.vectors.query(ns, "knowledge", mem.embedder.embed_query("Redis caches sessions"), 1)
    assert hits[0].id == o.id and hits[0].metadata["type"] == "knowledge" and hits[0].metadata["source"] == "llm"
    names = {h.document for h in mem.vectors.query(ns, "entity", mem.embedder.embed_query("Redis"), 5)}
    assert names == {"Redis", "sessions"}


def test_an_item_contradicting_itself_is_skipped_and_in_batch_contradiction_penalises(make_mem):
    mem = make_mem(offline=True)
    store, ns = mem.analysis.store, mem.namespace
    store.apply(ns, "s1", [fact("The cache is Redis")], "llm")
    (out,) = store.apply(ns, "s2", [fact("The cache is Redis", contradicts="The cache is Redis.")], "llm")
    assert (out.action, out.reason) == ("skipped", "contradicts_itself")
    assert mem.learnings()[0]["confidence"] == pytest.approx(0.5)
    # an item contradicted by a later item of the same batch: inserted, then penalised
    out = store.apply(ns, "s3", [fact("The queue is RabbitMQ"),
                                 fact("The queue is Kafka", contradicts="The queue is RabbitMQ")], "llm")
    assert [o.action for o in out] == ["inserted", "contradicted"]
    conf = {i["content"]: i["confidence"] for i in mem.learnings()}
    assert conf["The queue is RabbitMQ"] == pytest.approx(0.2) and conf["The queue is Kafka"] == pytest.approx(0.5)

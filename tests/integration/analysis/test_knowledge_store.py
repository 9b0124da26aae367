"""KnowledgeStore edge cases on the real stack: exact-text dedup, in-batch dedup, removed items,
the judges (the offline rules, an LLM extraction's own verdict, the batched adjudication of pairs no
extraction call saw), and the graph/Chroma write order."""

from __future__ import annotations

import json
import re

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
    out = mem.analysis.store.apply(
        mem.namespace,
        "s",
        [
            fact("The staging database runs on port 5432"),
            fact("The staging database listens on port 5432"),
            fact("The user prefers tabs over spaces", type="preference"),
        ],
        "offline",
    )
    assert [o.action for o in out] == ["inserted", "merged", "inserted"]
    assert out[1].id == out[0].id
    (db,) = [i for i in mem.learnings() if "staging database" in i["content"]]
    assert db["times_seen"] == 2 and db["confidence"] == pytest.approx(0.5)  # same session: no boost


def test_removed_items_are_not_relearnt(make_mem):
    mem = make_mem(offline=True)
    store, ns = mem.analysis.store, mem.namespace
    (ins,) = store.apply(ns, "s1", [fact("The staging database runs on port 5432")], "llm")
    mem.analysis.curator.remove(ns, ins.id)
    out = store.apply(
        ns,
        "s2",
        [fact("The staging database runs on port 5432"), fact("The staging database listens on port 5432")],
        "llm",
    )
    assert [(o.action, o.reason) for o in out] == [("skipped", "removed"), ("skipped", "removed")]
    assert mem.learnings() == [] and len(mem.learnings(include_inactive=True)) == 1
    assert mem.analysis_stats()["skipped"] == 2


def test_another_amount_of_the_same_measure_contradicts_offline(make_mem, q):
    mem = make_mem(offline=True)
    store, ns = mem.analysis.store, mem.namespace
    (first,) = store.apply(ns, "s1", [fact("The API listens on port 8080")], "offline")
    (out,) = store.apply(ns, "s2", [fact("The API listens on port 9090")], "offline")
    assert out.action == "contradicted" and out.contradicted_id == first.id and out.id != first.id
    assert out.judgement.startswith("contradiction: other_amount")
    items = {i["content"]: i for i in mem.learnings()}
    assert items["The API listens on port 8080"]["confidence"] == pytest.approx(0.2)  # both kept, old penalised
    assert items["The API listens on port 9090"]["confidence"] == pytest.approx(0.5)
    assert (
        q(
            "MATCH (:Knowledge {ns: $ns, id: $n})-[:CONTRADICTS]->(:Knowledge {ns: $ns, id: $o}) RETURN count(*) AS c",
            n=out.id,
            o=first.id,
        )[0]["c"]
        == 1
    )


class ByOldText:
    """A TextGenerator answering an adjudication prompt pair by pair: the relation of the first key
    found in a pair's old statement (else distinct); it records the prompts."""

    name = "by-old-text"

    def __init__(self, relations: dict[str, str]) -> None:
        self.relations = relations
        self.prompts: list[str] = []

    def generate(self, prompt: str, *, system: str | None = None) -> str:
        self.prompts.append(prompt)
        pairs = re.findall(r'<pair number="(\d+)">\n<old>(.*?)</old>', prompt)
        verdicts = []
        for number, old in pairs:
            relation = next((r for key, r in self.relations.items() if key in old), "distinct")
            verdicts.append({"pair": int(number), "relation": relation})
        return json.dumps({"verdicts": verdicts})


def test_ingested_items_are_adjudicated_in_one_batched_call(make_mem, q):
    generator = ByOldText({"Gradle": "contradiction", "RabbitMQ": "paraphrase"})
    mem = make_mem(generator=generator)
    store, ns = mem.analysis.store, mem.namespace
    store.apply(ns, "s1", [fact("The build uses Gradle."), fact("The message queue is RabbitMQ.")], "ingest")
    assert generator.prompts == []  # nothing stored yet: no pair to judge
    out = store.apply(ns, "s2", [fact("The build uses Maven."), fact("Our message queue is RabbitMQ.")], "ingest")
    assert len(generator.prompts) == 1  # every pair of the batch in one call
    assert [(o.action, (o.judgement or "").split(" (")[0]) for o in out] == [
        ("contradicted", "contradiction: llm"),
        ("merged", "paraphrase: llm"),
    ]
    conf = {i["content"]: i["confidence"] for i in mem.learnings()}
    assert conf["The build uses Gradle."] == pytest.approx(0.2) and conf["The build uses Maven."] == 0.5
    assert conf["The message queue is RabbitMQ."] == pytest.approx(0.59)
    # the same batch again (a retried ingest): answered from the judge's memory, no second call
    store.apply(ns, "s3", [fact("The build uses Maven."), fact("Our message queue is RabbitMQ.")], "ingest")
    assert len(generator.prompts) == 1 and mem.analysis.judge.counters.pairs >= 2


def test_an_extraction_calls_items_carry_its_own_verdict(make_mem):
    generator = ByOldText({"": "contradiction"})  # would call every pair a contradiction if asked
    mem = make_mem(generator=generator)
    store, ns = mem.analysis.store, mem.namespace
    (first,) = store.apply(ns, "s1", [fact("The build uses Gradle.")], "llm")
    # not quoted in contradicts and not a restatement: a second fact, the judge is not asked
    (other,) = store.apply(ns, "s2", [fact("The build uses Gradle and Kotlin scripts.")], "llm")
    (again,) = store.apply(ns, "s3", [fact("The build uses Gradle!")], "llm")
    (quoted,) = store.apply(ns, "s4", [fact("The build uses Maven.", contradicts="The build uses Gradle.")], "llm")
    assert generator.prompts == []
    assert other.action == "inserted" and again.action == "merged" and again.id == first.id
    assert quoted.action == "contradicted" and quoted.contradicted_id == first.id


def say(mem, session, text):
    mem.turn(session=session, role="user", text=text)
    mem.end_session(session)
    assert mem.wait_for_analysis(60)


def test_a_paraphrase_in_a_later_session_merges_and_boosts(make_mem, q):
    """Offline, end to end: "I prefer using tabs over spaces." restates the preference — it used to be
    taken for a contradiction (0.59 -> 0.29, a duplicate linked CONTRADICTS)."""
    mem = make_mem(offline=True)
    say(mem, "s1", "I prefer tabs over spaces.")
    say(mem, "s2", "I prefer tabs over spaces!")
    (tabs,) = mem.learnings()
    assert tabs["confidence"] == pytest.approx(0.59)
    say(mem, "s3", "I prefer using tabs over spaces.")
    (tabs,) = mem.learnings(include_inactive=True)
    assert tabs["confidence"] == pytest.approx(0.662) and tabs["source_sessions"] == ["s1", "s2", "s3"]
    assert q("MATCH (:Knowledge {ns: $ns})-[r:CONTRADICTS]->() RETURN count(r) AS c")[0]["c"] == 0
    assert mem.analysis_stats()["contradicted"] == 0
    # the same judgement retried (a window and the session learner, a re-run) does not boost again
    again = mem.analysis.analyzer.analyze(
        mem.namespace, "s3", [{"role": "user", "text": "I prefer using tabs over spaces."}]
    )
    assert [o.action for o in again.outcomes] == ["merged"]
    (tabs,) = mem.learnings()
    assert tabs["confidence"] == pytest.approx(0.662)


def test_an_offline_correction_is_kept_beside_the_value_it_corrects(make_mem, q):
    """Offline, the demo's correction is close in wording to the old port: it is never merged into it
    (no rule proves a contradiction, so both are kept and nothing is penalised)."""
    mem = make_mem(offline=True)
    say(mem, "s1", "The staging database listens on port 5432.")
    say(mem, "s2", "Actually, the staging database listens on port 6543, not 5432.")
    items = {i["content"]: i for i in mem.learnings()}
    old = items["The staging database listens on port 5432."]
    new = items["The staging database listens on port 6543, not 5432."]
    assert new["type"] == "correction" and old["confidence"] == pytest.approx(0.5) and new["confidence"] == 0.5


def test_two_facts_that_can_both_be_true_are_both_kept(make_mem, q):
    mem = make_mem(offline=True)
    say(mem, "s1", "I like tea.")
    say(mem, "s2", "I like coffee.")
    say(mem, "s3", "The main branch is protected.")
    say(mem, "s4", "The release branch is protected.")
    items = mem.learnings()
    assert len(items) == 4 and all(i["confidence"] == pytest.approx(0.5) for i in items)
    assert q("MATCH (:Knowledge {ns: $ns})-[r:CONTRADICTS]->() RETURN count(r) AS c")[0]["c"] == 0


def test_a_paraphrase_below_the_old_cosine_cut_merges(make_mem):
    mem = make_mem(offline=True)
    say(mem, "s1", "We keep secrets in HashiCorp Vault.")
    say(mem, "s2", "Our secrets are stored in HashiCorp Vault.")
    (vault,) = mem.learnings()
    assert vault["content"] == "The user's team keeps secrets in HashiCorp Vault."
    assert vault["confidence"] == pytest.approx(0.59) and vault["times_seen"] == 2


def test_contradicting_an_unknown_item_is_a_plain_insert(make_mem):
    mem = make_mem(offline=True)
    out = mem.analysis.store.apply(
        mem.namespace, "s", [fact("Tests run with pytest", contradicts="Something never stored anywhere at all")], "llm"
    )
    assert [o.action for o in out] == ["inserted"] and out[0].contradicted_id is None


def test_writes_go_to_graph_then_chroma(make_mem, q, ns):
    mem = make_mem(offline=True)
    (o,) = mem.analysis.store.apply(
        ns, "s", [fact("Redis caches sessions", subject="Redis", predicate="caches", object="sessions")], "llm"
    )
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
    out = store.apply(
        ns,
        "s3",
        [fact("The queue is RabbitMQ"), fact("The queue is Kafka", contradicts="The queue is RabbitMQ")],
        "llm",
    )
    assert [o.action for o in out] == ["inserted", "contradicted"]
    conf = {i["content"]: i["confidence"] for i in mem.learnings()}
    assert conf["The queue is RabbitMQ"] == pytest.approx(0.2) and conf["The queue is Kafka"] == pytest.approx(0.5)

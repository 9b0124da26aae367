"""Knowledge over time on the real stack: valid_from from the turns' ts, supersession of a changed
fact, current-by-default search, as_of, history, out-of-order ingest and the schema-10 migration.

The conversation is the one of ``benchmarks/knowledge_time.py`` (ten facts said in March, each
changed in April, offline extractor); that script measures how often the current value ranks first,
this test asserts what must hold for every change the judge detected.
"""

from __future__ import annotations

import pytest

from benchmarks.knowledge_time import AFTER_TS, BEFORE_TS, BETWEEN, CHANGES, first_named, tell
from kgmem.errors import ValidationError
from kgmem.graph.schema import backfill_knowledge_time
from kgmem.retrieval.config import PRESETS


def test_ten_changed_facts_are_superseded_current_by_default_and_answerable_as_of(make_client, q):
    mem = make_client(offline=True)
    tell(mem)
    items = {i["id"]: i for i in mem.learnings(include_inactive=True)}
    march = [i for i in items.values() if i["valid_from"] < AFTER_TS]
    assert march and all(BEFORE_TS <= i["valid_from"] for i in march)  # the turns' time, not the ingest time
    links = q(
        "MATCH (o:Knowledge {ns: $ns})-[s:SUPERSEDED_BY]->(n:Knowledge) "
        "RETURN o.id AS old, n.id AS new, o.valid_until AS until, n.valid_from AS since, s.at AS at"
    )
    # Offline, another amount of one measure (the port, the version) is a detected change; other changes
    # are kept beside the old value and ranked by recency (docs/judging.md).
    assert links
    for link in links:
        assert link["until"] == link["since"] == link["at"]  # the old one stopped when the new one was said
        assert link["since"] >= AFTER_TS
        chain = [x["id"] for x in mem.history(link["new"])]
        assert chain.index(link["old"]) < chain.index(link["new"])  # oldest first, both linked
        assert [x["id"] for x in mem.history(link["old"])] == chain
    superseded = {link["old"] for link in links}
    for change in CHANGES:
        now = mem.search(change.question, k=10, kinds=["knowledge"])
        assert not superseded & {h.id for h in now.hits}  # current by default
        for h in now.hits:
            assert h.metadata["valid_from"] and h.metadata.get("valid_until") is None
        then = mem.search(change.question, k=10, as_of=BETWEEN)
        assert first_named(then.hits, change) == "old", change.question  # nothing said after as_of
        assert all(not h.ts or h.ts <= BETWEEN for h in then.hits)
        ctx = mem.context(change.question, max_tokens=300, as_of=BETWEEN)
        assert change.new not in ctx.text
    with pytest.raises(ValidationError, match="as_of"):
        mem.search("x", as_of="March, more or less")


def test_an_older_statement_ingested_later_is_stored_as_already_superseded(mem, q):
    triple = {"subject": "deploy service", "predicate": "port"}
    newer = {"type": "knowledge", "content": "The deploy service port is 9090.", "object": "9090", **triple}
    older = {"type": "knowledge", "content": "The deploy service port is 8080.", "object": "8080", **triple}
    mem.ingest([{**newer, "ts": "2026-06-01T09:00:00Z"}])
    mem.ingest([{**older, "ts": "2026-03-01T09:00:00Z"}])
    rows = {
        r["content"]: r
        for r in q(
            "MATCH (k:Knowledge {ns: $ns}) OPTIONAL MATCH (k)-[:SUPERSEDED_BY]->(n:Knowledge) "
            "RETURN k.content AS content, k.valid_from AS since, k.valid_until AS until, k.confidence AS c, "
            "collect(n.content) AS by"
        )
    }
    new, old = rows[newer["content"]], rows[older["content"]]
    if not old["by"]:
        pytest.skip("the judge did not call these two a contradiction")
    assert old["since"] == "2026-03-01T09:00:00+00:00" and old["until"] == new["since"] == "2026-06-01T09:00:00+00:00"
    assert old["by"] == [newer["content"]] and new["by"] == [] and new["until"] is None
    assert new["c"] > old["c"]  # the penalty went to the statement that was replaced
    hits = mem.search("deploy service port", kinds=["knowledge"]).hits
    assert [h.text for h in hits][:1] == [newer["content"]]


def test_the_migration_gives_old_items_their_time_and_supersedes_contradicted_ones(graph, q):
    q(
        "CREATE (o:Knowledge {ns: $ns, id: 'o', content: 'old', created_at: '2025-01-01T00:00:00+00:00', "
        "is_manual: false, is_active: true}), "
        "(n:Knowledge {ns: $ns, id: 'n', content: 'new', created_at: '2025-02-01T00:00:00+00:00', "
        "is_manual: false, is_active: true}), "
        "(m:Knowledge {ns: $ns, id: 'm', content: 'manual', created_at: '2025-01-01T00:00:00+00:00', "
        "is_manual: true, is_active: true}), "
        "(n)-[:CONTRADICTS]->(o), (n)-[:CONTRADICTS]->(m)"
    )
    backfill_knowledge_time(graph)
    backfill_knowledge_time(graph)  # idempotent
    rows = {
        r["id"]: r
        for r in q(
            "MATCH (k:Knowledge {ns: $ns}) RETURN k.id AS id, k.valid_from AS since, k.valid_until AS until, "
            "k.recorded_at AS recorded, COUNT { (k)-[:SUPERSEDED_BY]->() } AS links"
        )
    }
    assert rows["o"]["since"] == rows["o"]["recorded"] == "2025-01-01T00:00:00+00:00"
    assert rows["o"]["until"] == rows["n"]["since"] == "2025-02-01T00:00:00+00:00" and rows["o"]["links"] == 1
    assert rows["n"]["until"] is None and rows["m"]["until"] is None and rows["m"]["links"] == 0


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_preset_is_current_by_default_and_answers_as_of(mem, q, preset):
    triple = {"subject": "billing service", "predicate": "port"}
    old = {"type": "knowledge", "content": "The billing service port is 8080.", "object": "8080", **triple}
    new = {"type": "knowledge", "content": "The billing service port is 9090.", "object": "9090", **triple}
    mem.ingest([{**old, "ts": "2026-03-01T09:00:00Z"}])
    mem.ingest([{**new, "ts": "2026-06-01T09:00:00Z"}])
    assert q("MATCH (o:Knowledge {ns: $ns})-[:SUPERSEDED_BY]->(n) RETURN o.content AS old") == [{"old": old["content"]}]
    question = "Which port does the billing service use?"
    for kinds in (["knowledge"], None):
        now = [h.text for h in mem.search(question, kinds=kinds, preset=preset).hits]
        assert new["content"] in now and old["content"] not in now, (preset, kinds, now)
        then = mem.search(question, kinds=kinds, preset=preset, as_of="2026-04-01").hits
        assert old["content"] in [h.text for h in then] and new["content"] not in [h.text for h in then]
        assert all(h.metadata.get("valid_from") for h in then if h.kind == "knowledge")
    ctx = mem.context(question, preset=preset)
    assert new["content"] in ctx.text and old["content"] not in ctx.text
    ctx = mem.context(question, preset=preset, as_of="2026-04-01")
    assert old["content"] in ctx.text and new["content"] not in ctx.text

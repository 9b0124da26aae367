"""The concept graph on the real stack: every memory MENTIONS its concepts, df stays right.

Turns, error patterns, fixes and manual knowledge are written with their Concept nodes and
MENTIONS edges in the writers' own statements; df is the number of memories mentioning a concept
after re-writes, edits, removals and namespace deletion, and retrieval does not walk Concepts.
"""

from __future__ import annotations

from datetime import UTC
from typing import Any

import pytest

from kgmem.concepts import concept_id, normalise_key
from kgmem.conversation import Turn
from kgmem.maintenance import delete_namespace


def q(mem, query: str, **params: Any) -> list[dict[str, Any]]:
    records, _, _ = mem.graph.driver.execute_query(query, parameters_=params)
    return [r.data() for r in records]


def concepts(mem, ns: str) -> dict[str, dict[str, Any]]:
    rows = q(
        mem,
        "MATCH (c:Concept {ns: $ns}) RETURN c.key AS key, c.df AS df, c.kind AS kind, c.name AS name, "
        "c.id AS id, c.ns_key AS ns_key, COUNT { (c)<-[:MENTIONS]-() } AS degree",
        ns=ns,
    )
    return {r["key"]: r for r in rows}


def assert_df_is_degree(mem, ns: str) -> None:
    wrong = [c for c in concepts(mem, ns).values() if c["df"] != c["degree"]]
    assert wrong == []


def mentioned(mem, ns: str, label_ref: str) -> set[str]:
    return {
        r["key"]
        for r in q(
            mem,
            "MATCH (m:Message {ns: $ns, ref: $ref})-[:MENTIONS]->(c:Concept) RETURN c.key AS key",
            ns=ns,
            ref=label_ref,
        )
    }


TURNS = [
    Turn("s1", "Caroline", "I went to the LGBTQ support group yesterday, it was powerful.", ref="d1"),
    Turn("s1", "Melanie", "Wow Caroline! I painted a lake sunrise with my kids last weekend.", ref="d2"),
    Turn("s1", "Caroline", "Mel, your paintings are lovely. Support groups changed my life.", ref="d3"),
]


def test_turns_mention_concepts_with_df(mem, ns):
    mem.turns.record(ns, TURNS)
    found = concepts(mem, ns)
    assert found["support group"]["df"] == 2  # "support group" and "Support groups" (lemma)
    assert found["caroline"]["kind"] == "entity" and found["caroline"]["df"] == 1
    assert found["melanie"]["df"] == 1 and "mel" not in found  # "Mel" resolves to the speaker Melanie
    assert found["painting"]["df"] == 1 and found["kid"]["kind"] == "phrase"
    assert "yesterday" not in found and "weekend" not in found  # dates and generic nouns are no concepts
    c = found["support group"]
    assert c["id"] == concept_id(ns, "support group") and c["ns_key"]
    assert {"caroline", "kid", "painting"} <= mentioned(mem, ns, "d2") | mentioned(mem, ns, "d3")
    assert_df_is_degree(mem, ns)


def test_rewriting_the_same_turns_leaves_df_unchanged(mem, ns):
    mem.turns.record(ns, TURNS)
    before = concepts(mem, ns)
    edges = q(mem, "MATCH (:Message {ns: $ns})-[r:MENTIONS]->() RETURN count(r) AS n", ns=ns)[0]["n"]
    mem.turns.record(ns, TURNS)
    mem.turns.record(ns, TURNS[1:])
    assert concepts(mem, ns) == before
    assert q(mem, "MATCH (:Message {ns: $ns})-[r:MENTIONS]->() RETURN count(r) AS n", ns=ns)[0]["n"] == edges


def test_a_changed_turn_moves_its_mentions_and_df(mem, ns):
    mem.turns.record(ns, TURNS)
    mem.turns.record(ns, [Turn("s1", "Caroline", "The adoption agency called about the interview.", ref="d1")])
    found = concepts(mem, ns)
    assert found["support group"]["df"] == 1  # d1 no longer mentions it
    assert found["adoption agency"]["df"] == 1
    assert "lgbtq support group" not in found or found["lgbtq support group"]["df"] == 0
    assert_df_is_degree(mem, ns)


def test_errors_and_fixes_mention_concepts(mem, ns):
    error = "ConnectionRefusedError: the staging database refuses connections on port 5432"
    obs = mem.tool_result("psql", {"port": 5432}, error=error, session="s")
    mem.tool_result("psql", {"port": 5432}, error=error, session="s")  # a repeat adds no df
    mem.resolve(obs, "start the postgres service with systemctl")
    mem.flush()
    rows = q(
        mem,
        "MATCH (m {ns: $ns})-[:MENTIONS]->(c:Concept) WHERE m:ErrorPattern OR m:Fix "
        "RETURN labels(m)[0] AS label, collect(c.key) AS keys",
        ns=ns,
    )
    keys = {r["label"]: set(r["keys"]) for r in rows}
    assert "database" in keys["ErrorPattern"] or "staging database" in keys["ErrorPattern"]
    assert "postgres service" in keys["Fix"] or "service" in keys["Fix"]
    assert_df_is_degree(mem, ns)
    assert all(c["df"] == 1 for c in concepts(mem, ns).values() if c["key"] in keys["ErrorPattern"] - keys["Fix"])


def test_manual_knowledge_edit_remove_and_reset_keep_df(mem, ns):
    mem.turns.record(ns, TURNS)
    item = mem.add_knowledge("Caroline joined a support group for transgender people", type="fact")
    assert concepts(mem, ns)["support group"]["df"] == 3
    curator = mem.analysis.curator
    curator.edit(ns, item["id"], "Caroline plans to adopt children through an agency")
    found = concepts(mem, ns)
    assert found["support group"]["df"] == 2 and found["agency"]["df"] == 1
    curator.remove(ns, item["id"])  # a removed item mentions nothing
    assert concepts(mem, ns)["caroline"]["df"] == 1 and concepts(mem, ns)["agency"]["df"] == 0
    curator.reset(ns, item["id"])
    assert concepts(mem, ns)["agency"]["df"] == 1
    assert_df_is_degree(mem, ns)


def test_namespace_delete_takes_the_concepts(mem, ns, graph):
    mem.turns.record(ns, TURNS)
    assert concepts(mem, ns)
    delete_namespace(graph, None, ns)
    assert concepts(mem, ns) == {}


def test_search_does_not_walk_or_return_concepts(mem, ns):
    mem.turns.record(ns, TURNS)
    ids = {r["id"] for r in q(mem, "MATCH (m:Message {ns: $ns}) RETURN m.id AS id", ns=ns)}
    res = mem.search("support group for Caroline", k=10, ns=ns)
    assert res.hits and {h.kind for h in res.hits} == {"message"} and {h.id for h in res.hits} <= ids


@pytest.mark.parametrize("text", ["", "   ", "😀🎉👍", "我喜欢北京的烤鸭。", "Привет, Мария из Москвы!"])
def test_odd_texts_are_stored_with_bounded_concepts(mem, ns, text):
    if not text.strip():
        return  # an empty turn is rejected by validation before any concept work (tests/unit)
    mem.turns.record(ns, [Turn("s", "user", text, ref="x")])
    assert q(mem, "MATCH (m:Message {ns: $ns, ref: 'x'}) RETURN m.text AS t", ns=ns) == [{"t": text}]
    assert len(mentioned(mem, ns, "x")) <= mem.settings.concepts.max_per_memory
    assert all(normalise_key(k) == k for k in mentioned(mem, ns, "x"))


def test_reindex_recounts_df_and_drops_unmentioned_concepts(mem, ns):
    from kgmem.maintenance.reindex import reindex

    mem.turns.record(ns, TURNS)
    q(mem, "MATCH (c:Concept {ns: $ns, key: 'caroline'}) SET c.df = 42", ns=ns)  # a lost update, say
    q(mem, "MERGE (c:Concept {ns: $ns, id: 'orphan'}) SET c.key = 'orphan', c.df = 1", ns=ns)
    summary = reindex(mem.graph, mem.vectors, mem.embedder, ns, missing_only=True)
    assert (summary.concept_df_fixed, summary.concept_orphans) == (1, 1)
    assert "orphan" not in concepts(mem, ns)
    assert_df_is_degree(mem, ns)


def test_a_batch_writes_each_concept_once_with_the_exact_df(mem, ns):
    # One batch: names every turn carries (one Concept each, df 40 from one aggregated write) and a
    # turn written twice in the batch (its last text wins).
    turns = [Turn("s2", "Caroline", f"Melanie and I talked about pottery number {i}.", ref=f"p{i}") for i in range(40)]
    turns += [
        Turn("s2", "Melanie", "Hiking with the dog.", ref="dup"),
        Turn("s2", "Melanie", "Swimming in the lake.", ref="dup"),
    ]
    mem.turns.record(ns, turns)
    found = concepts(mem, ns)
    assert found["melanie"]["df"] == 40 and found["pottery"]["df"] == 40
    assert "lake" in mentioned(mem, ns, "dup") and "dog" not in found
    assert_df_is_degree(mem, ns)
    mem.turns.record(ns, turns)  # a retried batch (same rows) moves no df
    assert concepts(mem, ns) == found


def _row(ns: str, ref: str) -> dict[str, Any]:
    from kgmem.conversation.store import message_id
    from kgmem.ids import node_id

    turn = Turn("s3", "user", f"text {ref}", ref=ref)
    return {
        "id": message_id(ns, turn),
        "session_id": node_id(ns, "session", "s3"),
        "session": "s3",
        "role": "user",
        "text": turn.text,
        "ref": ref,
        "ts": None,
    }


def test_batch_concepts_name_kind_and_stale_edges(mem, ns):
    from datetime import datetime

    from kgmem.concepts import mention_links

    def concept(key: str, name: str, kind: str) -> dict[str, str]:
        return {"id": concept_id(ns, key), "key": key, "name": name, "kind": kind}

    rows = [_row(ns, "a"), _row(ns, "b"), _row(ns, "c")]
    found = [
        [concept("paris", "paris", "phrase"), concept("lake", "lake", "phrase")],
        [concept("paris", "Paris", "entity")],
        [concept("lake", "Lake", "phrase")],
    ]
    now = datetime.now(UTC).isoformat()
    mem.graph.write(
        "conversation/record_turns", ns=ns, now=now, rows=rows, links=mention_links([r["id"] for r in rows], found)
    )
    got = concepts(mem, ns)
    # The first mention of the batch names the concept; an entity reading anywhere in it wins.
    assert (got["paris"]["name"], got["paris"]["kind"], got["paris"]["df"]) == ("paris", "entity", 2)
    assert (got["lake"]["name"], got["lake"]["kind"], got["lake"]["df"]) == ("lake", "phrase", 2)
    # a and c re-written: a loses lake and gains dog, c loses lake; b's concepts were not extracted.
    again = [[concept("paris", "Paris", "phrase"), concept("dog", "dog", "phrase")], None, []]
    mem.graph.write(
        "conversation/record_turns", ns=ns, now=now, rows=rows, links=mention_links([r["id"] for r in rows], again)
    )
    got = concepts(mem, ns)
    assert (got["paris"]["df"], got["lake"]["df"], got["dog"]["df"]) == (2, 0, 1)
    assert got["paris"]["kind"] == "entity"  # no edge created: nothing to downgrade
    assert_df_is_degree(mem, ns)


def test_reingesting_a_file_keeps_df(mem, ns, tmp_path):
    import json

    path = tmp_path / "turns.jsonl"
    lines = [
        {
            "type": "turn",
            "session": f"s{i % 3}",
            "role": ["Caroline", "Melanie"][i % 2],
            "text": f"Caroline told Melanie about the adoption agency and the support group ({i}).",
            "ref": f"r{i}",
        }
        for i in range(30)
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    mem.ingest(path, ns=ns, batch_size=8, progress=False)
    first = concepts(mem, ns)
    assert first["adoption agency"]["df"] == 30 and first["caroline"]["df"] == 30
    mem.ingest(path, ns=ns, batch_size=7, progress=False)  # other batch boundaries, same graph
    assert concepts(mem, ns) == first
    assert_df_is_degree(mem, ns)

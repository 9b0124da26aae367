"""TurnStore on the real stack: batch write, NEXT chain across batches, idempotency, vectors."""

from __future__ import annotations

import pytest

from kgmem.conversation import MESSAGE_KIND, Turn, TurnStore
from kgmem.errors import ValidationError
from kgmem.maintenance import delete_namespace


@pytest.fixture
def store(mem) -> TurnStore:
    return TurnStore(mem.graph, mem.vectors, mem.embedder)


def test_record_chains_messages_in_order_across_batches(store, mem, ns):
    first = store.record(
        ns, [Turn("s1", "user", "hello there", ref="d1"), Turn("s1", "assistant", "hi, how can I help?", ref="d2")]
    )
    second = store.record(ns, [Turn("s1", "user", "my build fails with a timeout", ref="d3")])
    msgs = store.messages(ns, "s1")
    assert [m["id"] for m in msgs] == first + second
    assert [m["seq"] for m in msgs] == [0, 1, 2]
    chain = mem.graph.driver.execute_query(
        "MATCH (a:Message {ns: $ns})-[:NEXT]->(b:Message {ns: $ns}) RETURN a.ref AS x, b.ref AS y ORDER BY a.seq",
        ns=ns,
    ).records
    assert [(r["x"], r["y"]) for r in chain] == [("d1", "d2"), ("d2", "d3")]
    assert mem.vectors.count(ns, MESSAGE_KIND) == 3
    pending = mem.graph.driver.execute_query(
        "MATCH (m:Message {ns: $ns}) WHERE m.vector_pending RETURN count(m) AS n", ns=ns
    ).records[0]["n"]
    assert pending == 0


def test_record_is_idempotent(store, mem, ns):
    turns = [Turn("s", "user", f"turn number {i}", ref=f"r{i}") for i in range(5)]
    ids = store.record(ns, turns)
    again = store.record(ns, turns)
    assert ids == again
    counts = mem.graph.driver.execute_query(
        "MATCH (m:Message {ns: $ns}) OPTIONAL MATCH (m)-[n:NEXT]->() "
        "RETURN count(DISTINCT m) AS msgs, count(n) AS nexts",
        ns=ns,
    ).records[0]
    assert (counts["msgs"], counts["nexts"]) == (5, 4)
    assert mem.vectors.count(ns, MESSAGE_KIND) == 5


def test_sessions_are_separate_and_end_session_sets_ended_at(store, mem, ns):
    store.record(ns, [Turn("a", "user", "alpha one"), Turn("b", "user", "beta one"), Turn("a", "user", "alpha two")])
    assert [m["text"] for m in store.messages(ns, "a")] == ["alpha one", "alpha two"]
    assert [m["text"] for m in store.messages(ns, "b")] == ["beta one"]
    store.end_session(ns, "a")
    row = mem.graph.driver.execute_query(
        "MATCH (s:Session {ns: $ns, key: 'a'}) RETURN s.ended_at AS ended, s.turns AS turns", ns=ns
    ).records[0]
    assert row["ended"] is not None and row["turns"] == 2


def test_vector_metadata_carries_session_ref_and_ts(store, mem, ns):
    store.record(ns, [Turn("s", "Caroline", "I went to a support group", ref="D1:3", ts="2023-05-08T13:56:00")])
    hit = mem.vectors.query(ns, MESSAGE_KIND, mem.embedder.embed_query("support group"), 1)[0]
    assert hit.metadata["session"] == "s" and hit.metadata["ref"] == "D1:3"
    assert hit.metadata["ts"].startswith("2023-05-08T13:56:00")


@pytest.mark.parametrize(
    "turn, field",
    [
        (Turn("", "user", "x"), "turns[1].session"),
        (Turn("s", "user", "  "), "turns[1].text"),
        (Turn("s", "user", "x", ts="yesterday"), "turns[1].ts"),
        ({"session": "s", "role": "u", "text": "t", "x": 1}, "x"),
    ],
)
def test_bad_turn_names_the_field_and_stores_nothing(store, mem, ns, turn, field):
    with pytest.raises(ValidationError, match=field.replace("[", r"\[").replace("]", r"\]")):
        store.record(ns, [Turn("s", "user", "fine"), turn])
    assert store.messages(ns, "s") == []


def test_given_concepts_are_written_as_the_extractor_would(mem, ns):
    texts = ["Caroline went to the pottery class in Boston.", "Melanie is painting a sunrise for the charity."]
    turns = [Turn("s", "user", t, ref=f"r{i}") for i, t in enumerate(texts)]
    extracted = mem.turns.concepts.extract_many(texts)
    other = f"{ns}-given"
    try:
        mem.turns.record(ns, turns)
        mem.turns.record(other, turns, concepts=extracted)

        def mentions(namespace: str) -> list[tuple[str, str, str, int]]:
            return [
                (r["ref"], r["key"], r["kind"], r["df"])
                for r in mem.graph.driver.execute_query(
                    "MATCH (m:Message {ns: $ns})-[:MENTIONS]->(c:Concept) "
                    "RETURN m.ref AS ref, c.key AS key, c.kind AS kind, c.df AS df ORDER BY ref, key",
                    ns=namespace,
                ).records
            ]

        assert mentions(ns) and mentions(other) == mentions(ns)
    finally:
        delete_namespace(mem.graph, mem.vectors, other)


def test_concepts_must_match_the_turns(store, mem, ns):
    with pytest.raises(ValidationError, match="concepts: 1 lists for 2 turns"):
        store.record(ns, [Turn("s", "user", "one"), Turn("s", "user", "two")], concepts=[[]])
    assert store.messages(ns, "s") == []

"""The LLM path through the REAL anthropic SDK over a mocked HTTP transport, on the real stack.

Covers: success, an invalid item and a doubtful one in a good answer, malformed JSON,
429-then-success, 5xx until retries run out (non-fatal), timeouts (non-fatal), cosine
merge of a paraphrase, contradiction (old penalised, both kept, CONTRADICTS edge), a manual
item contradicted but untouched, the ghost-learning guard in the prompt, a superseded value said
again (current again as a new item), token usage, and drops counted when the queue is full.
"""

from __future__ import annotations

import logging

import pytest

from kgmem.analysis import confidence
from kgmem.analysis import stats as saved_stats

A = {
    "type": "fact",
    "content": "The staging database runs on port 5432",
    "confidence": 0.9,
    "subject": "staging database",
    "predicate": "runs on",
    "object": "port 5432",
}
A_PARAPHRASE = {
    "type": "fact",
    "content": "The staging database listens on port 5432",
    "confidence": 0.9,
    "subject": "staging database",
    "predicate": "listens on",
    "object": "port 5432",
}
B = {
    "type": "preference",
    "content": "The user prefers concise answers",
    "confidence": 0.8,
    "subject": "user",
    "predicate": "prefers",
    "object": "concise answers",
}
C = {
    "type": "preference",
    "content": "The user prefers detailed answers with examples",
    "confidence": 0.8,
    "contradicts": "The user prefers concise answers",
}
C_UNLINKED = {k: v for k, v in C.items() if k != "contradicts"}
MANUAL = "Deploys need approval from Sam"
D = {"type": "correction", "content": "Deploys need no approval at all", "confidence": 0.9, "contradicts": MANUAL + "."}


def talk(mem, session, n=5):
    for i in range(n):
        mem.turn(
            session=session,
            role="user" if i % 2 == 0 else "assistant",
            text=f"{session} turn {i}: some words",
            ref=f"{i}",
        )
    mem.end_session(session)
    assert mem.wait_for_analysis(60)


def item(mem, content):
    found = [i for i in mem.learnings(include_inactive=True) if i["content"] == content]
    assert len(found) == 1, (content, [i["content"] for i in mem.learnings(include_inactive=True)])
    return found[0]


def test_llm_analysis_through_the_sdk(make_client, scripted, asettings, q, ns):
    mem = make_client(generator=scripted.generator(asettings))
    stats = mem.analysis_stats
    assert stats()["extractor"] == f"anthropic:{asettings.anthropic.model}"
    manual = mem.add_knowledge(MANUAL, type="fact")

    # s1: window -> success (one invalid, one doubtful item); session end -> malformed JSON
    scripted.then(
        scripted.items(
            A,
            B,
            {"type": "opinion", "content": "meh meh", "confidence": 0.5},
            {"type": "fact", "content": "The user might like jazz", "confidence": 0.2},
        ),
        ("text", 'Sure! Here is what I found: [{"type": "fact"'),
    )
    talk(mem, "s1")
    assert item(mem, A["content"])["confidence"] == pytest.approx(0.5)
    assert item(mem, B["content"])["source"] == "llm"
    assert [i for i in mem.learnings() if "jazz" in i["content"]] == []
    s = stats()
    assert (s["invalid_items"], s["malformed_outputs"], s["inserted"]) == (1, 1, 3)  # 3 = A, B, manual
    assert s["skipped"] == 3  # invalid item, low extraction confidence, malformed output
    # the request the SDK sent: model and max_tokens from settings, knowledge in the prompt
    assert scripted.requests[0]["model"] == asettings.anthropic.model
    assert scripted.requests[0]["max_tokens"] == asettings.anthropic.max_tokens
    assert "[user] s1 turn 0: some words" in scripted.prompts()[0]
    assert f"- [fact] {MANUAL}" in scripted.prompts()[0]
    assert f"- [fact] {A['content']}" in scripted.prompts()[1]  # session end sees the window's items

    # s2: window -> 429 then success (paraphrase merge, contradictions); session end -> 5xx until retries run out
    scripted.then(
        ("status", 429), scripted.items(A_PARAPHRASE, C, D), ("status", 500), ("status", 503), ("status", 529)
    )
    talk(mem, "s2")
    a = item(mem, A["content"])
    assert a["confidence"] == pytest.approx(0.59) and a["times_seen"] == 2 and a["source_sessions"] == ["s1", "s2"]
    assert [i for i in mem.learnings() if i["content"] == A_PARAPHRASE["content"]] == []  # merged, not duplicated
    assert item(mem, B["content"])["confidence"] == pytest.approx(0.2)  # penalised, kept
    c = item(mem, C["content"])
    assert c["confidence"] == pytest.approx(0.5)
    assert q(
        "MATCH (:Knowledge {ns: $ns, id: $c})-[r:CONTRADICTS]->(b:Knowledge {ns: $ns}) RETURN b.content AS b, "
        "r.sessions AS sessions",
        c=c["id"],
    ) == [{"b": B["content"], "sessions": ["s2"]}]
    m = item(mem, MANUAL)
    assert m["confidence"] == 1.0 and m["is_manual"]  # contradicted, never penalised
    assert (
        q(
            "MATCH (:Knowledge {ns: $ns})-[:CONTRADICTS]->(k:Knowledge {ns: $ns, id: $m}) RETURN count(*) AS n",
            m=manual["id"],
        )[0]["n"]
        == 1
    )
    s = stats()
    assert s["contradicted"] == 2 and s["analysis_failed"] == 1
    assert s["usage"]["retries"] == 3 and s["usage"]["failures"] == 1  # 429 once; 5xx: 3 attempts
    # the triple of the merged paraphrase is added to the item, its predicate as data
    preds = q(
        "MATCH (k:Knowledge {ns: $ns, id: $id})-[:ABOUT]->(:Entity)-[r:RELATES_TO]->(:Entity) "
        "WHERE r.knowledge_id = k.id RETURN r.predicate AS p, r.confidence AS c",
        id=a["id"],
    )
    assert preds == [{"p": "runs on", "c": pytest.approx(0.59)}]

    # s3: window -> timeouts until retries run out; session end -> B extracted again. C replaced B in s2, so
    # B said again later is current again: a new item from now on, superseding C; B keeps its interval.
    scripted.then(("timeout",), ("timeout",), ("timeout",), scripted.items({**B, "confidence": 0.9}))
    talk(mem, "s3")
    assert stats()["analysis_failed"] == 2
    assert q("MATCH (m:Message {ns: $ns})-[:PART_OF]->(:Session {key: 's3'}) RETURN count(m) AS n")[0]["n"] == 5
    # ghost-learning guard: B, superseded by C, is listed as an earlier value, not as current knowledge
    current, earlier = scripted.prompts()[-1].split("## Earlier values")
    assert B["content"] not in current and f"] [preference] {B['content']}" in earlier and "[superseded " in earlier
    old_b, new_b = sorted(
        (i for i in mem.learnings(include_inactive=True) if i["content"] == B["content"]), key=lambda i: i["valid_from"]
    )
    assert old_b["confidence"] == pytest.approx(0.2) and old_b["valid_until"] == c["valid_from"]  # untouched
    assert new_b["valid_until"] is None and new_b["confidence"] == pytest.approx(0.5)
    c_now = item(mem, C["content"])
    assert c_now["valid_until"] == new_b["valid_from"] and c_now["confidence"] == pytest.approx(0.2)
    assert [x["id"] for x in mem.history(old_b["id"])] == [old_b["id"], c["id"], new_b["id"]]
    found = [h.id for h in mem.search("answers", kinds=["knowledge"]).hits if "answers" in h.text]
    assert found[:1] == [new_b["id"]] and old_b["id"] not in found and c["id"] not in found  # current by default
    assert stats()["revived"] == 0

    # s4, s5: one-turn sessions (window at end_session; too short for the session learner): B lands on the
    # current item
    scripted.then(scripted.items(B), scripted.items(B))
    talk(mem, "s4", n=1)
    talk(mem, "s5", n=1)
    ids = {i["id"]: i for i in mem.learnings(include_inactive=True) if i["content"] == B["content"]}
    assert ids.keys() == {old_b["id"], new_b["id"]}
    assert ids[new_b["id"]]["confidence"] == pytest.approx(0.662) and ids[old_b["id"]]["confidence"] == 0.2
    assert stats()["revived"] == 0

    usage = stats()["usage"]
    assert usage["calls"] == 6 and usage["input_tokens"] > 0 and usage["output_tokens"] == 6 * 20
    assert len(scripted.requests) == 13
    mem.close()
    assert saved_stats(asettings, ns)["revived"] == 0


def test_drops_are_counted_when_the_queue_is_full(make_client, scripted, asettings, q, ns, caplog):
    mem = make_client(generator=scripted.generator(asettings), queue_size=1, turn_threshold=1)
    scripted.gate = __import__("threading").Event()
    with caplog.at_level(logging.WARNING, logger="kgmem.analysis.events"):
        mem.turn(session="busy", role="user", text="I prefer option 0")
        assert scripted.entered.wait(30)  # the worker is inside the (blocked) API call
        for i in range(1, 4):
            mem.turn(session="busy", role="user", text=f"I prefer option {i}")
    assert mem.analysis_stats()["dropped"] == 2  # turn 1 queued (size 1); turns 2 and 3 dropped
    assert sum("knowledge.dropped" in r.getMessage() for r in caplog.records) == 2
    scripted.gate.set()
    assert mem.wait_for_analysis(30)
    assert len(scripted.requests) == 2
    # the turns themselves are all stored; only their analysis was dropped
    assert q("MATCH (m:Message {ns: $ns}) RETURN count(m) AS n")[0]["n"] == 4
    mem.close()
    assert saved_stats(asettings, ns)["dropped"] == 2


def test_a_value_restated_against_a_later_one_ends_the_later_one(make_client, scripted, asettings, q):
    # Two values both current (no one linked them), then the first said again, contradicting the second: the
    # second had replaced the first, and is replaced in turn — no interval ends before it began.
    mem = make_client(generator=scripted.generator(asettings))
    scripted.then(scripted.items(B), scripted.items(C_UNLINKED), scripted.items({**B, "contradicts": C["content"]}))
    for session in ("s1", "s2", "s3"):
        talk(mem, session, n=1)
    (first, again), later = (
        sorted(
            (i for i in mem.learnings(include_inactive=True) if i["content"] == B["content"]),
            key=lambda i: i["valid_from"],
        ),
        item(mem, C["content"]),
    )
    assert again["valid_until"] is None and later["valid_until"] == again["valid_from"]
    assert first["valid_until"] == later["valid_from"]
    assert [x["id"] for x in mem.history(first["id"])] == [first["id"], later["id"], again["id"]]
    assert q("MATCH (k:Knowledge {ns: $ns}) WHERE k.valid_until < k.valid_from RETURN k.content AS c") == []

"""Knowledge a person adds (``add_knowledge``, ``correction``) is judged against the stored items like
extracted knowledge, on the real stack: offline by the rules, with a key by the batched adjudication
call through the real anthropic SDK (the HTTP transport scripted). A contradiction supersedes the older
item (valid_until, SUPERSEDED_BY, the penalty); a duplicate or paraphrase lands on the stored item.
"""

from __future__ import annotations

import json

import pytest

from kgmem.analysis import confidence

PORT_OLD = "The billing API listens on port 8080."
PORT_NEW = "The billing API listens on port 9090."
TABS = "The user prefers tabs over spaces for indentation."
TABS_AGAIN = "The user prefers tabs to spaces for indentation."


def ingest(mem, content, ts):
    report = mem.ingest([{"type": "knowledge", "content": content, "ts": ts}])
    assert not report.errors, report.errors


def stored(mem, content):
    found = [i for i in mem.learnings(include_inactive=True) if i["content"] == content]
    assert len(found) == 1, (content, [i["content"] for i in mem.learnings(include_inactive=True)])
    return found[0]


def links(q):
    return q(
        "MATCH (o:Knowledge {ns: $ns})-[s:SUPERSEDED_BY]->(n:Knowledge) "
        "OPTIONAL MATCH (n)-[c:CONTRADICTS]->(o) "
        "RETURN o.content AS old, n.content AS new, o.valid_until AS until, n.valid_from AS since, "
        "s.at AS at, count(c) AS contradicts"
    )


def test_a_correction_supersedes_the_value_it_changes_offline(make_client, q, asettings):
    mem = make_client(offline=True)
    ingest(mem, PORT_OLD, "2026-03-01T09:00:00Z")
    old = stored(mem, PORT_OLD)
    assert old["confidence"] == pytest.approx(asettings.analysis.initial_confidence) and not old["is_manual"]

    new = mem.add_knowledge(PORT_NEW, type="correction")
    assert new["is_manual"] and new["confidence"] == 1.0 and new["content"] == PORT_NEW
    [link] = links(q)
    assert (link["old"], link["new"], link["contradicts"]) == (PORT_OLD, PORT_NEW, 1)
    assert link["until"] == link["since"] == link["at"] == new["valid_from"]
    penalised = confidence.penalise(
        old["confidence"], asettings.analysis.contradiction_penalty, asettings.analysis.confidence_floor
    )
    assert stored(mem, PORT_OLD)["confidence"] == pytest.approx(penalised)
    assert [x["content"] for x in mem.history(new["id"])] == [PORT_OLD, PORT_NEW]
    hits = mem.search("Which port does the billing API listen on?", kinds=["knowledge"]).hits
    assert PORT_OLD not in [h.text for h in hits] and [h.text for h in hits][:1] == [PORT_NEW]
    assert [h.text for h in mem.search("billing API port", kinds=["knowledge"], as_of="2026-04-01").hits][:1] == [
        PORT_OLD
    ]

    mem.add_knowledge(PORT_NEW, type="correction")  # said again: the same item, no second penalty
    assert stored(mem, PORT_OLD)["confidence"] == pytest.approx(penalised)
    assert len(links(q)) == 1
    assert mem.analysis_stats()["contradicted"] == 1


def test_a_manual_value_is_superseded_by_a_newer_manual_one_without_a_penalty(make_client, q):
    mem = make_client(offline=True)
    first = mem.add_knowledge(PORT_OLD)
    second = mem.add_knowledge(PORT_NEW)
    assert first["id"] != second["id"]
    [link] = links(q)
    assert (link["old"], link["new"]) == (PORT_OLD, PORT_NEW)
    assert stored(mem, PORT_OLD)["confidence"] == 1.0  # a person's word is not penalised


def test_a_value_added_again_after_it_changed_is_current_again(make_client, q):
    mem = make_client(offline=True)
    ingest(mem, PORT_OLD, "2026-03-01T09:00:00Z")
    [first] = [i for i in mem.learnings(include_inactive=True) if i["content"] == PORT_OLD]
    new = mem.add_knowledge(PORT_NEW, type="correction")
    back = mem.add_knowledge(PORT_OLD, type="correction")  # the old value, word for word
    assert back["id"] != first["id"] and back["content"] == PORT_OLD and back["is_manual"]
    assert back["valid_until"] is None and back["valid_from"] > new["valid_from"]
    assert stored(mem, PORT_NEW)["valid_until"] == back["valid_from"]
    assert {(link["old"], link["new"]) for link in links(q)} == {(PORT_OLD, PORT_NEW), (PORT_NEW, PORT_OLD)}
    olds = {i["id"]: i for i in mem.learnings(include_inactive=True) if i["content"] == PORT_OLD}
    assert olds[first["id"]]["valid_until"] == new["valid_from"]  # the first interval is kept
    assert [x["id"] for x in mem.history(first["id"])] == [first["id"], new["id"], back["id"]]
    hits = mem.search("Which port does the billing API listen on?", kinds=["knowledge"]).hits
    assert [h.id for h in hits if "port" in h.text][:1] == [back["id"]] and new["id"] not in {h.id for h in hits}
    then = [h.id for h in mem.search("billing API port", kinds=["knowledge"], as_of="2026-04-01").hits]
    assert then[:1] == [first["id"]] and back["id"] not in then

    assert mem.add_knowledge(PORT_OLD)["id"] == back["id"]  # said once more: the current item
    assert len(mem.history(first["id"])) == 3


def test_a_paraphrase_lands_on_the_stored_item_and_distinct_items_stay_apart(make_client, q):
    mem = make_client(offline=True)
    ingest(mem, TABS, "2026-03-01T09:00:00Z")
    before = stored(mem, TABS)
    again = mem.add_knowledge(TABS_AGAIN, type="preference")
    assert again["id"] == before["id"] and again["content"] == TABS  # merged: promoted, not duplicated
    assert again["is_manual"] and again["confidence"] == 1.0
    other = mem.add_knowledge("The nightly backup runs at 02:00 UTC.")
    assert other["id"] != before["id"]
    assert sorted(i["content"] for i in mem.learnings(include_inactive=True)) == sorted(
        [TABS, "The nightly backup runs at 02:00 UTC."]
    )
    assert links(q) == []


def verdicts(*relations):
    return ("text", json.dumps({"verdicts": [{"pair": n, "relation": r} for n, r in enumerate(relations, 1)]}))


def test_with_a_key_the_adjudication_call_decides_once(make_client, scripted, asettings, q):
    mem = make_client(generator=scripted.generator(asettings))
    ingest(mem, "My manager is Priya.", "2026-03-01T09:00:00Z")
    ingest(mem, TABS, "2026-03-01T09:00:00Z")
    assert scripted.requests == []  # nothing stored near either: no call

    scripted.then(verdicts("contradiction"))
    new = mem.correction("My manager is Tomás now.")
    assert new is None
    prompt = scripted.prompts()[-1]
    assert "<old>My manager is Priya.</old>" in prompt and "<new>My manager is Tomás now.</new>" in prompt
    [link] = links(q)
    assert (link["old"], link["new"]) == ("My manager is Priya.", "My manager is Tomás now.")
    assert stored(mem, "My manager is Priya.")["valid_until"] == stored(mem, "My manager is Tomás now.")["valid_from"]

    scripted.then(verdicts("paraphrase"))
    again = mem.add_knowledge(TABS_AGAIN, type="preference")
    assert again["content"] == TABS and again["is_manual"]
    judge = mem.analysis_stats()["judge"]
    assert (judge["calls"], judge["pairs"], judge["fallbacks"]) == (2, 2, 0)

    calls = len(scripted.requests)
    again = mem.add_knowledge(TABS_AGAIN, type="preference")  # asked again: answered from memory
    assert again["content"] == TABS and len(scripted.requests) == calls
    assert mem.analysis_stats()["judge"]["pairs"] == 2  # a judgement counts once


def test_with_a_key_an_unreadable_answer_falls_back_to_the_offline_judge(make_client, scripted, asettings, q):
    mem = make_client(generator=scripted.generator(asettings))
    ingest(mem, PORT_OLD, "2026-03-01T09:00:00Z")
    scripted.then(("text", "I think they differ."))
    mem.add_knowledge(PORT_NEW)
    [link] = links(q)  # the offline rule (another amount of one measure) decided
    assert (link["old"], link["new"]) == (PORT_OLD, PORT_NEW)
    judge = mem.analysis_stats()["judge"]
    assert (judge["failures"], judge["fallbacks"]) == (1, 1)

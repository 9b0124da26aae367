"""Forget's planner, driven with scripted graph answers: what each scope erases, keeps and refuses."""

from collections.abc import Callable
from typing import Any

import pytest

from kgmem.forget import ForgetTargetNotFound, Scope
from kgmem.forget.erase import Counts, chunks, erase_op
from kgmem.forget.plan import Plan, lucene_phrase, plan_op
from kgmem.ids import ns_key
from kgmem.runner import Gather, Read, VectorDelete, VectorGet, Write

Answers = dict[str, Callable[[dict[str, Any]], Any]]
NO_CLOSE = {"forget/close": lambda p: [{"fixes": [], "entities": [], "corrections": []}]}


def drive(op, answers: Answers, log: list | None = None):
    """Run an operation, answering each request from ``answers`` (by Cypher name or request type)."""
    value = None
    try:
        while True:
            req = op.send(value)
            if log is not None:
                log.append(req)
            if isinstance(req, Gather):
                value = [drive(o, answers, log) for o in req.ops]
            elif isinstance(req, (Read, Write)):
                value = answers[req.name](dict(req.params))
            elif isinstance(req, VectorGet):
                value = {i: [0.0] for i in req.ids}
            else:
                value = None
    except StopIteration as stop:
        return stop.value


def test_an_unknown_id_is_refused_before_anything_is_written():
    log: list = []
    with pytest.raises(ForgetTargetNotFound, match="no turn, knowledge item, error pattern, fix or entity 'ab12'"):
        drive(plan_op("ns", Scope("id", "ab12")), {"forget/plan_ids": lambda p: []}, log)
    assert all(isinstance(r, Read) for r in log)


def test_an_id_names_its_label():
    plan = drive(
        plan_op("ns", Scope("id", "k1")),
        {"forget/plan_ids": lambda p: [{"id": "k1", "label": "Knowledge"}], **NO_CLOSE},
    )
    assert plan.counts() == {"Knowledge": 1}


def test_an_entity_id_takes_its_knowledge_but_searches_no_text():
    seen: dict[str, Any] = {}

    def entity(p):
        seen.update(p)
        return [{"entities": ["e1"], "concepts": [], "items": [{"label": "Knowledge", "id": "k1"}]}]

    answers = {"forget/plan_ids": lambda p: [{"id": "e1", "label": "Entity"}], "forget/plan_entity": entity, **NO_CLOSE}
    plan = drive(plan_op("ns", Scope("id", "e1")), answers)
    assert plan.items["Entity"] == ["e1"] and plan.items["Knowledge"] == ["k1"]
    assert seen["phrase"] is None and seen["needle"] is None


def test_an_unknown_session_is_refused():
    with pytest.raises(ForgetTargetNotFound, match="no session 'chat-9' in namespace 'ns'"):
        drive(plan_op("ns", Scope("session", "chat-9")), {"forget/plan_session": lambda p: []})


def test_a_session_erases_what_only_it_supports_and_keeps_the_rest():
    row = {
        "key": "s1",
        "messages": ["m1", "m2"],
        "knowledge": ["k1"],
        "knowledge_kept": ["k2"],
        "errors": ["e1"],
        "errors_kept": ["e2"],
        "fixes": ["f1"],
    }
    closes = iter(
        [
            [{"fixes": ["f2"], "entities": ["n1"], "corrections": ["k3"]}],
            [{"fixes": ["f2"], "entities": ["n1"], "corrections": ["k3"]}],
        ]
    )
    plan = drive(
        plan_op("ns", Scope("session", "s1")),
        {"forget/plan_session": lambda p: [row], "forget/close": lambda p: next(closes)},
    )
    assert plan.items["Message"] == ["m1", "m2"]
    assert plan.items["Knowledge"] == ["k1", "k3"]  # the correction that went with its fix
    assert plan.items["Fix"] == ["f1", "f2"]
    assert plan.items["Entity"] == ["n1"]
    assert plan.items["Session"] == [plan.target]
    assert plan.knowledge_kept == ["k2"] and plan.errors_kept == ["e2"]
    assert plan.sessions == ["s1"]


def test_an_entity_nobody_mentions_is_refused():
    answers = {"forget/plan_entity": lambda p: [{"entities": [], "concepts": [], "items": []}]}
    with pytest.raises(ForgetTargetNotFound, match="nothing in namespace 'ns' names or mentions 'Nobody'"):
        drive(plan_op("ns", Scope("entity", "Nobody")), answers)


def test_an_entity_is_found_by_concept_and_by_full_text():
    seen: dict[str, Any] = {}

    def entity(p):
        seen.update(p)
        items = [{"label": "Message", "id": "m1"}, {"label": "Knowledge", "id": "k1"}, {"label": "Message", "id": "m1"}]
        return [{"entities": [], "concepts": ["c1"], "items": items}]

    plan = drive(plan_op("ns", Scope("entity", "Ada Lovelace")), {"forget/plan_entity": entity, **NO_CLOSE})
    assert plan.items["Message"] == ["m1"] and plan.items["Knowledge"] == ["k1"]
    assert plan.needle == "ada lovelace"
    assert seen["concept_ids"] and seen["phrase"] == f'+ns_key:"{ns_key("ns")}" +"Ada Lovelace"'


def test_the_full_text_phrase_escapes_quotes():
    assert lucene_phrase("ns", 'say "hi" \\ now').endswith('+"say \\"hi\\" \\\\ now"')


def test_erase_goes_in_batches_graph_then_vectors_in_smaller_batches():
    plan = Plan("ns", Scope("session", "s1"), "sid", session_key="s1")
    plan.add("Message", [f"m{i}" for i in range(5)])
    plan.add("Session", ["sid"])
    log: list = []
    answers = {
        "forget/erase_batch": lambda p: [
            {
                "erased": [{"label": p["rows"][0]["label"], "n": len(p["rows"]), "vectors": len(p["rows"])}],
                "relationships": 1,
                "concepts": 0,
            }
        ],
        "forget/unlink_session": lambda p: [{"provenance": 0, "occurrences": 0, "contradictions": 0}],
        "forget/erase_retrieval_state": lambda p: [{"queries": 1, "overlays": 0, "session_states": 0}],
    }
    counts = drive(erase_op(plan, batch=3, vector_batch=2), answers, log)
    assert isinstance(counts, Counts)
    assert counts.graph["Message"] == 5 and counts.graph["Session"] == 1
    assert counts.vectors["message"] == 5
    deletes = [r for r in log if isinstance(r, VectorDelete)]
    assert [len(d.ids) for d in deletes] == [2, 1, 2]  # each graph batch's vectors, two per delete
    assert sum(isinstance(r, Gather) for r in log) == 2  # a batch's vectors go beside its graph write
    names = [r.name for r in log if isinstance(r, Write)]
    # the session's node goes last, after its provenance and retrieval state
    assert names[-1] == "forget/erase_batch" and names[-2] == "forget/erase_retrieval_state"
    assert names.index("forget/unlink_session") > names.index("forget/erase_batch")


def test_chunks():
    assert chunks(["a", "b", "c"], 2) == [["a", "b"], ["c"]]
    assert chunks([], 2) == []

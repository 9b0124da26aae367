"""Batch planning (observed fixes from parameter changes) and the similarity key guard."""

from __future__ import annotations

import json

import pytest

from kgmem.errors import ValidationError
from kgmem.ids import node_id
from kgmem.learning.plan import fix_description, plan_batch, prepare
from kgmem.learning.similarity import decode_keys, encode_keys, error_keys, keys_compatible

NS = "t"


def test_fix_description_from_parameter_difference() -> None:
    assert (
        fix_description("http", {"timeout": 5, "url": "u"}, {"timeout": 30, "url": "u"})
        == "http: set timeout=30 (was 5)"
    )
    assert (
        fix_description("psql", {"host": "a", "ssl": True}, {"host": "a", "port": 6432})
        == "psql: set port=6432; remove ssl"
    )
    assert fix_description("llm", {"m": 1}, {"m": 1}) == "llm: retry with the same parameters"


def test_success_after_failure_in_same_session_records_observed_fix() -> None:
    events = [
        prepare("http", {"timeout": 5}, "Read timed out after 5s", "s1", "2024-01-01T00:00:01Z"),
        prepare("http", {"timeout": 5}, "Read timed out after 5s", "s1", "2024-01-01T00:00:02Z"),
        prepare("http", {"timeout": 30}, None, "s1", "2024-01-01T00:00:03Z"),
        prepare("http", {"timeout": 5}, "Read timed out after 5s", "s2", "2024-01-01T00:00:04Z"),
    ]
    plan = plan_batch(NS, events, 100)
    assert len(plan.errors) == 2  # one row per (pattern, session)
    s1 = next(r for r in plan.errors if r["session"] == "s1")
    s2 = next(r for r in plan.errors if r["session"] == "s2")
    assert s1["count"] == 2 and s1["open"] is False  # closed by the success
    assert s2["count"] == 1 and s2["open"] is True and json.loads(s2["params"]) == {"timeout": 5}
    assert s1["id"] == s2["id"]  # same pattern in both sessions
    [outcome] = plan.outcomes
    assert outcome["description"] == "http: set timeout=30 (was 5)" and outcome["success"] is True
    assert outcome["error_id"] == s1["id"] and plan.successes == 1


def test_success_pairs_with_open_failure_from_the_graph_and_closes_all() -> None:
    sid = node_id(NS, "session", "s1")
    graph_open = {
        (sid, "git"): [
            {"error_id": "e-new", "pattern": "p", "category": "tool_error", "params": '{"remote": "b"}'},
            {"error_id": "e-old", "pattern": "q", "category": "tool_error", "params": '{"remote": "a"}'},
        ]
    }
    plan = plan_batch(NS, [prepare("git", {"remote": "c"}, None, "s1")], 100, graph_open)
    assert [o["error_id"] for o in plan.outcomes] == ["e-new"]
    assert plan.outcomes[0]["description"] == "git: set remote=c (was b)"
    assert sorted(c["error_id"] for c in plan.closes) == ["e-new", "e-old"]


def test_other_tool_or_no_session_does_not_pair() -> None:
    events = [
        prepare("a", {"x": 1}, "boom", "s"),
        prepare("b", {"x": 2}, None, "s"),
        prepare("a", {"x": 3}, None, None),
    ]
    plan = plan_batch(NS, events, 100)
    assert plan.outcomes == [] and plan.errors[0]["open"] is True


def test_prepare_validates_fields() -> None:
    with pytest.raises(ValidationError, match="tool"):
        prepare("", {}, "x")
    with pytest.raises(ValidationError, match="params"):
        prepare("t", ["not", "a", "dict"], "x")
    with pytest.raises(ValidationError, match="error"):
        prepare("t", {}, 42)
    with pytest.raises(ValidationError, match="session"):
        prepare("t", {}, "x", session="  ")
    exc = prepare("t", {}, TimeoutError("slow"))
    assert exc.message == "TimeoutError: slow" and "TimeoutError" in exc.exc_types


def test_error_keys_and_compatibility() -> None:
    refused = error_keys("[Errno 111] Connection refused")
    mac_refused = error_keys("[Errno 61] Connection refused")
    no_route = error_keys("[Errno 113] No route to host")
    assert refused == {"os": frozenset({"ECONNREFUSED"})}
    assert keys_compatible(refused, mac_refused)  # Linux and macOS numbers of the same errno
    assert not keys_compatible(refused, no_route)
    assert keys_compatible(refused, {})  # no keys on one side: no conflict
    assert not keys_compatible(error_keys("HTTP Error 403"), error_keys("HTTP Error 404"))
    assert keys_compatible(error_keys("EACCES: permission denied"), error_keys("[Errno 13] Permission denied"))
    assert decode_keys(encode_keys(error_keys("ERROR 1045: HTTP 401 EACCES"))) == error_keys(
        "ERROR 1045: HTTP 401 EACCES"
    )


def test_a_subject_is_a_key_of_proof_not_of_linking() -> None:
    # two reports of one kind of error about other names are still linked (a suggestion): only the proof
    # that they are one error (kgmem.learning.identity.same_error) needs the names equal
    metadb = {"db": frozenset({"3D000"}), "subject": frozenset({"metadb"})}
    dave = {"db": frozenset({"3D000"}), "subject": frozenset({"dave"})}
    assert keys_compatible(metadb, dave) and keys_compatible(dave, metadb)
    assert not keys_compatible(metadb, {**dave, "db": frozenset({"42P01"})})  # the other kinds still guard
    assert decode_keys(encode_keys(metadb)) == metadb

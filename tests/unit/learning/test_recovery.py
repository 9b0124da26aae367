"""One recovery = one Fix, planned without I/O (kgmem.learning.recovery, plan_batch)."""

from __future__ import annotations

from kgmem.ids import node_id
from kgmem.learning.plan import fix_id, plan_batch, prepare
from kgmem.learning.recovery import plan_resolve

NS = "ns"
SID = node_id(NS, "session", "s")
ERR = "could not connect to server: Connection refused (10.0.0.5:5432)"


def _outcome(fix: str = "start the db", success: bool = True) -> dict:
    return {"error_id": "e1", "fix_id": fix_id(NS, fix), "description": fix, "success": success}


def test_resolve_without_session_is_a_plain_outcome() -> None:
    assert plan_resolve(_outcome(), None, None) == ([_outcome()], [], [])


def test_resolve_of_an_open_failure_declares_the_fix() -> None:
    outcomes, retracts, recoveries = plan_resolve(_outcome(), {"tool": "psql", "open": True}, SID)
    assert outcomes == [_outcome()] and retracts == []
    assert recoveries[0]["kind"] == "declared" and recoveries[0]["fix_id"] == fix_id(NS, "start the db")


def test_resolve_of_an_observed_recovery_moves_its_success_to_the_named_fix() -> None:
    state = {"tool": "psql", "open": False, "recovery_fix": "observed-fix", "held": False}
    outcomes, retracts, recoveries = plan_resolve(_outcome(), state, SID)
    assert outcomes[0]["weight"] == 1 and retracts == [{"error_id": "e1", "fix_id": "observed-fix", "weight": 1}]
    assert recoveries[0]["kind"] == "recovery" and recoveries[0]["fix_id"] == fix_id(NS, "start the db")
    held = plan_resolve(_outcome(), {**state, "held": True}, SID)  # the hold's success moves too
    assert held[0][0]["weight"] == 2 and held[1][0]["weight"] == 2 and held[2][0]["held"] is True


def test_resolve_with_the_recovery_fix_itself_only_confirms() -> None:
    state = {"tool": "psql", "open": False, "recovery_fix": fix_id(NS, "start the db"), "held": False}
    assert plan_resolve(_outcome(), state, SID) == ([{**_outcome(), "weight": 0}], [], [])


def test_a_failed_declared_fix_is_withdrawn() -> None:
    state = {"tool": "psql", "open": True, "declared_fix": fix_id(NS, "start the db")}
    _, _, recoveries = plan_resolve(_outcome(success=False), state, SID)
    assert recoveries[0]["kind"] == "declared" and recoveries[0]["fix_id"] is None


def test_batch_recovery_then_one_hold() -> None:
    events = [
        prepare("psql", {"port": 5432}, ERR, "s"),
        prepare("psql", {"port": 6432}, None, "s"),
        prepare("psql", {"port": 6432}, None, "s"),
        prepare("psql", {"port": 6432}, None, "s"),
    ]
    plan = plan_batch(NS, events, 500)
    assert [o["source"] for o in plan.outcomes] == ["observed", "observed"]  # recovery + one hold
    assert plan.outcomes[0]["fix_id"] == plan.outcomes[1]["fix_id"]
    assert [(r["kind"], r["held"], r["fresh"]) for r in plan.recoveries] == [
        ("recovery", False, True),
        ("recovery", True, False),
    ]
    assert plan.fix_of_event[0] is None and plan.fix_of_event[3] is None
    assert plan.fix_of_event[1] == plan.fix_of_event[2] == (plan.outcomes[0]["error_id"], plan.outcomes[0]["fix_id"])


def test_declared_fix_in_the_graph_completes_the_recovery_without_a_second_count() -> None:
    key = (SID, "psql")
    graph = {
        key: [
            {
                "error_id": "e1",
                "open": True,
                "params": "{}",
                "declared_fix": "named",
                "pattern": "p",
                "category": "network",
            }
        ]
    }
    plan = plan_batch(NS, [prepare("psql", {}, None, "s")], 500, graph)
    assert plan.outcomes == [] and plan.recoveries[0]["fix_id"] == "named" and plan.closes
    assert plan.fix_of_event == [("e1", "named")]


def test_hold_uses_the_latest_graph_recovery_and_a_failure_supersedes_it() -> None:
    key = (SID, "psql")
    graph = {
        key: [
            {"error_id": "old", "open": False, "recovery_fix": "f-old", "recovered_at": "2024-01-01"},
            {"error_id": "new", "open": False, "recovery_fix": "f-new", "recovered_at": "2024-02-01"},
        ]
    }
    plan = plan_batch(NS, [prepare("psql", {}, None, "s")], 500, graph)
    assert plan.fix_of_event == [("new", "f-new")]
    failed_first = plan_batch(
        NS,
        [prepare("psql", {}, "boom", "t"), prepare("psql", {}, "boom", "s"), prepare("psql", {}, None, "s")],
        500,
        graph,
    )
    assert failed_first.fix_of_event[2][0] != "new"  # the success recovers the new failure instead

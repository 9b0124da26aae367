"""Which of two contradicting statements is superseded: the one said first, whatever the ingest order."""

from __future__ import annotations

from kgmem.analysis.store import Outcome, _Plan, _Row, order_by_time


def plan_with(stored_from: str | None) -> _Plan:
    plan = _Plan()
    plan.rows["new"] = _Row(id="new", insert=True, seen=1)
    plan.rows["old"] = _Row(id="old", insert=False, existing={"id": "old", "valid_from": stored_from})
    plan.contradictions.append({"new_id": "new", "old_id": "old"})
    plan.outcomes.append(Outcome("contradicted", "x", id="new", contradicted_id="old"))
    return plan


def test_a_batch_said_after_the_stored_item_supersedes_it():
    plan = plan_with("2026-03-01T00:00:00+00:00")
    assert order_by_time(plan, "2026-06-01T00:00:00+00:00") == [{"new_id": "new", "old_id": "old"}]
    assert plan.outcomes[0].reason is None


def test_a_batch_said_before_the_stored_item_is_the_superseded_one():
    plan = plan_with("2026-06-01T00:00:00+00:00")
    assert order_by_time(plan, "2026-03-01T00:00:00+00:00") == [{"new_id": "old", "old_id": "new"}]
    assert "stored as superseded" in (plan.outcomes[0].reason or "")


def test_an_item_without_a_time_counts_as_older():
    plan = plan_with(None)
    assert order_by_time(plan, "2026-03-01T00:00:00+00:00") == [{"new_id": "new", "old_id": "old"}]

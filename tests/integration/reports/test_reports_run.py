"""Every report against the fixture graph returns the expected rows."""

from __future__ import annotations

from datetime import timedelta

import pytest

from kgmem.reports import list_reports, run_report


def run(mem, name, **params):  # type: ignore[no-untyped-def]
    return run_report(mem.graph, name, {"ns": mem.namespace, **params}).rows


def test_every_report_runs(analyst) -> None:
    mem, _ = analyst
    for spec in list_reports():
        rows = run(mem, spec.name)
        assert isinstance(rows, list), spec.name


def test_top_errors_orders_by_occurrence_with_trend(analyst) -> None:
    mem, _ = analyst
    rows = run(mem, "top_errors")
    assert [(r["tool"], r["occurrences"], r["sessions"]) for r in rows] == [
        ("http", 4, 3),
        ("bash", 3, 2),
        ("bash", 2, 2),
        ("db", 1, 1),
    ]
    by_tool_occ = {(r["tool"], r["occurrences"]): r for r in rows}
    t1 = by_tool_occ[("bash", 3)]
    # two events in s1 ten days ago, one in s2 today: falling
    assert (t1["recent"], t1["previous"], t1["trend"]) == (1, 2, "falling")
    assert by_tool_occ[("http", 4)]["trend"] == "new"
    assert [r["tool"] for r in run(mem, "top_errors", tool="bash", limit=1)] == ["bash"]


def test_error_trend_counts_events_per_day_and_tool(analyst) -> None:
    mem, fx = analyst
    rows = run(mem, "error_trend")
    today = fx.now.date().isoformat()
    old = (fx.now.date() - timedelta(days=10)).isoformat()
    got = {(r["day"], r["name"]): r["errors"] for r in rows}
    assert got == {(old, "bash"): 2, (today, "bash"): 3, (today, "http"): 4, (today, "db"): 1}


def test_unresolved_errors_are_recurring_without_a_confident_fix(analyst) -> None:
    mem, _ = analyst
    rows = run(mem, "unresolved_errors")
    assert [(r["tool"], r["occurrences"], r["best_fix"], r["best_confidence"]) for r in rows] == [
        ("http", 4, "run the command with sudo", 0.4),
        ("bash", 2, "increase the timeout", 0.6),
    ]
    assert [r["occurrences"] for r in run(mem, "unresolved_errors", threshold=0.5)] == [4]


def test_fix_effectiveness(analyst) -> None:
    mem, _ = analyst
    rows = {r["fix"]: r for r in run(mem, "fix_effectiveness")}
    f1, f2 = rows["increase the timeout"], rows["run the command with sudo"]
    assert (f1["errors"], f1["successes"], f1["failures"]) == (2, 5, 2)
    assert f1["success_rate"] == pytest.approx(5 / 7, abs=1e-3)
    assert f1["posterior"] == pytest.approx(7 / 11, abs=1e-3)
    assert (f1["avg_confidence"], f1["max_confidence"], f1["auto_apply_share"]) == (0.7, 0.8, 0.5)
    assert (f2["success_rate"], f2["posterior"], f2["auto_apply_share"], f2["source"]) == (0.0, 0.25, 0.0, "user")


def test_error_clusters_group_similar_errors(analyst) -> None:
    mem, _ = analyst
    rows = run(mem, "error_clusters")
    assert len(rows) == 1
    cluster = rows[0]
    assert (cluster["size"], cluster["tools"], cluster["occurrences"]) == (2, ["bash"], 5)
    assert len(cluster["patterns"]) == 2 and 0.8 <= cluster["avg_score"] <= 1.0
    assert run(mem, "error_clusters", min_score=0.95) == []  # the only link scores 0.9


def test_knowledge_by_type_and_band(analyst) -> None:
    mem, _ = analyst
    got = {(r["band"], r["type"]): (r["items"], r["manual"]) for r in run(mem, "knowledge_by_type")}
    assert got == {
        ("0.2-0.3", "fact"): (1, 0),
        ("0.5-0.6", "pattern"): (1, 0),
        ("0.8-0.9", "fact"): (1, 0),
        ("0.9-1.0", "correction"): (1, 1),
    }
    with_inactive = run(mem, "knowledge_by_type", include_inactive="true")
    assert sum(r["items"] for r in with_inactive) == 5


def test_contradictions_show_what_replaced_what(analyst) -> None:
    mem, _ = analyst
    rows = run(mem, "contradictions")
    assert [(r["newer"], r["older"], r["older_confidence"], r["session"]) for r in rows] == [
        ("The API rate limit is 100 requests per minute", "The API rate limit is 50 requests per minute", 0.2, "s2")
    ]


def test_stale_knowledge_excludes_fresh_and_manual_items(analyst) -> None:
    mem, _ = analyst
    rows = run(mem, "stale_knowledge")
    assert [r["content"] for r in rows] == ["Retries with backoff fix flaky network calls"]
    assert rows[0]["age_days"] == pytest.approx(60, abs=0.2)
    assert rows[0]["decays_to"] == pytest.approx(0.55 * 0.5 ** (30 / 90), abs=1e-3)
    assert len(run(mem, "stale_knowledge", days=3)) == 3  # k2 and inactive k4 were seen 5 days ago


def test_session_timeline(analyst) -> None:
    mem, _ = analyst
    rows = run(mem, "session_timeline")
    got = [(r["session"], r["messages"], r["errors"], r["error_events"], r["fixes"], r["knowledge"]) for r in rows]
    assert got == [("s1", 0, 2, 3, 2, 1), ("s2", 0, 3, 3, 2, 1), ("s3", 3, 3, 4, 2, 0)]


def test_retrieval_usage_ranks_by_feedback(analyst) -> None:
    mem, _ = analyst
    rows = run(mem, "retrieval_usage")
    assert [(r["kind"], r["feedback_events"]) for r in rows] == [("Knowledge", 4), ("Message", 2)]
    assert rows[0]["posterior"] == pytest.approx(3.2 / 4.3, abs=1e-3)
    assert rows[1]["balance"] == pytest.approx(-1.5)


def test_graph_health_counts_orphans_and_pending_vectors(analyst) -> None:
    mem, _ = analyst
    rows = {(r["kind"], r["name"]): r for r in run(mem, "graph_health")}
    nodes = {
        name: (r["count"], r["orphans"], r["vector_pending"]) for (kind, name), r in rows.items() if kind == "node"
    }
    assert nodes["ErrorPattern"] == (4, 0, 0)
    assert nodes["Knowledge"] == (5, 2, 4)  # k3, k4 unlinked; the four fixture items are not in Chroma
    assert nodes["Message"] == (3, 0, 0)
    assert nodes["Function"] == (3, 0, 0)
    assert (nodes["Tool"][0], nodes["Session"][0], nodes["Fix"][0]) == (3, 3, 2)
    assert rows[("relationship", "CALLS")]["count"] == 3
    assert rows[("relationship", "RESOLVED_BY")]["count"] == 3


def test_callgraph_edges(analyst) -> None:
    mem, _ = analyst
    rows = run(mem, "callgraph_edges")
    got = {(r["caller"], r["callee"]): (r["source"], r["confidence"], r["times_confirmed"]) for r in rows}
    assert got == {
        ("app.main", "app.parse"): ("observation", 0.6, 0),
        ("app.main", "app.load"): ("ast", 1.0, 0),
        ("app.load", "app.parse"): ("ast", 1.0, 1),
    }
    assert [r["source"] for r in run(mem, "callgraph_edges", source="observation")] == ["observation"]


def test_superseded_per_week_counts_the_replaced_fact_in_its_week(analyst) -> None:
    mem, _ = analyst
    rows = run(mem, "superseded_per_week")
    assert [(r["superseded"], r["examples"]) for r in rows] == [
        (1, ["The API rate limit is 50 requests per minute → The API rate limit is 100 requests per minute"])
    ]
    (old,) = [i for i in mem.learnings() if i["content"].endswith("50 requests per minute")]
    assert rows[0]["week"] <= old["valid_until"][:10]  # the Monday of the week it was replaced

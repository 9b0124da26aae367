"""Reports read what the other engines write: fixes recorded through `mem.resolve`, knowledge
through `mem.add_knowledge` / `mem.correction`, turns through `mem.turn` (catches property-name drift)."""

from __future__ import annotations


def rows(mem, name, **params):  # type: ignore[no-untyped-def]
    return mem.report(name, **params)


def test_fix_statistics_from_the_learning_engine(mem) -> None:
    obs = mem.tool_result("git", {"cmd": "push"}, error="fatal: remote rejected the push (hook declined)", session="w1")
    mem.tool_result("git", {"cmd": "push"}, error="fatal: remote rejected the push (hook declined)", session="w2")
    for success in (True, True, True, False):  # by error id: no occurrence, so each report counts
        mem.resolve(obs.id, "pull --rebase before pushing", success=success, session="w1")
    fixes = {r["fix"]: r for r in rows(mem, "fix_effectiveness")}
    fix = fixes["pull --rebase before pushing"]
    assert (fix["errors"], fix["successes"], fix["failures"], fix["success_rate"]) == (1, 3, 1, 0.75)
    assert 0.1 <= fix["max_confidence"] <= 1.0 and 0.0 < fix["posterior"] < 1.0
    unresolved = [r["pattern"] for r in rows(mem, "unresolved_errors", threshold=fix["max_confidence"] + 0.01)]
    assert unresolved == [obs.pattern]  # seen twice, best fix below the threshold
    assert rows(mem, "unresolved_errors", threshold=fix["max_confidence"] - 0.001) == []  # (rounded to 3 places)
    top = rows(mem, "top_errors")
    assert [(r["tool"], r["occurrences"], r["sessions"]) for r in top] == [("git", 2, 2)]


def test_manual_knowledge_and_turns_show_up(mem) -> None:
    mem.correction("Deploys go through the staging cluster first")
    for i, text in enumerate(["hello", "how do I deploy?", "through staging"]):
        mem.turn(session="chat-1", role="user" if i % 2 == 0 else "assistant", text=text, ref=f"t{i}")
    bands = rows(mem, "knowledge_by_type")
    assert [(b["band"], b["type"], b["items"], b["manual"]) for b in bands] == [("0.9-1.0", "correction", 1, 1)]
    assert rows(mem, "stale_knowledge", days=0) == []  # manual items never appear as stale
    timeline = rows(mem, "session_timeline")
    assert [(t["session"], t["messages"]) for t in timeline] == [("chat-1", 3)]
    health = {r["name"]: r for r in rows(mem, "graph_health") if r["kind"] == "node"}
    assert health["Message"]["count"] == 3 and health["Message"]["vector_pending"] == 0


def test_retrieval_feedback_shows_in_retrieval_usage(mem) -> None:
    mem.add_knowledge("The nightly backup runs at 02:00 UTC")
    result = mem.search("when does the backup run", k=3)
    hits = list(result)
    assert hits
    used = hits[0].id
    mem.feedback(result.query_id, used=[used], outcome="success")
    rows = {r["text"]: r for r in mem.report("retrieval_usage")}
    row = rows[hits[0].text]
    assert row["feedback_events"] >= 1 and row["alpha"] > row["beta"] and row["balance"] > 0
    assert row["last_used"] is not None


def test_concepts_from_the_memory_writers_show_in_the_concept_reports(mem) -> None:
    """Whatever the extractor finds, the concept reports agree with the graph the writers leave."""
    import math

    import pytest

    concepts = pytest.importorskip("kgmem.concepts", reason="the concept writer is not on this branch")
    texts = [
        "Melanie took a pottery class in Boston",
        "Melanie showed Caroline her pottery from Boston",
        "Caroline visited Boston with Melanie",
    ]
    for i, text in enumerate(texts):
        mem.turn(session="c1", role="user", text=text, ref=f"c{i}")
    mem.flush()
    top = rows(mem, "top_concepts", limit=1000)
    assert top, "turns naming people and places wrote no concepts"
    for row in top:
        # df is the count the writer keeps; the per-kind columns are counted live from MENTIONS
        assert row["df"] == row["messages"] + row["knowledge"] + row["errors"] + row["fixes"], row
        assert 0 < row["share"] <= 1
    by_key = {r["key"]: r for r in top}
    melanie = by_key.get(concepts.normalise_key("Melanie"))
    assert melanie is not None and melanie["df"] >= 2, sorted(by_key)
    pairs = rows(mem, "concept_cooccurrence", max_df_share=1.0, min_count=2)
    assert pairs, "names mentioned together in several turns make no pair"
    for pair in pairs:
        assert pair["count"] <= min(pair["df_a"], pair["df_b"])
        assert pair["pmi"] == pytest.approx(math.log2(pair["lift"]), abs=1e-3)

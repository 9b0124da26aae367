"""The learning curve on the real stack: an error, its fix, the next occurrence, auto-apply,
a similar error, a failing fix — plus the confidence the graph stores."""

from __future__ import annotations

import pytest

from kgmem import KGMem
from kgmem.learning.confidence import ConfidenceRules, after_outcomes, propagated

PG_REFUSED = (
    'psycopg2.OperationalError: connection to server at "{host}" ({ip}), port {port} failed: '
    "Connection refused\n\tIs the server running on that host and accepting TCP/IP connections?"
)


def _edge(driver, ns: str, error_id: str, fix_id: str) -> dict:
    records, _, _ = driver.execute_query(
        "MATCH (:ErrorPattern {ns: $ns, id: $e})-[r:RESOLVED_BY]->(:Fix {ns: $ns, id: $f}) RETURN r {.*} AS r",
        ns=ns,
        e=error_id,
        f=fix_id,
    )
    return records[0]["r"]


def test_fix_is_learnt_suggested_auto_applied_borrowed_and_dropped(mem: KGMem, driver, ns: str) -> None:
    rules = ConfidenceRules.from_settings(mem.settings.learning)

    # 1. The error occurs; nothing is known yet.
    first = mem.tool_result(
        "psql",
        {"host": "db1", "port": 5432},
        error=PG_REFUSED.format(host="db1", ip="10.0.0.5", port=5432),
        session="a",
    )
    assert first is not None and first.is_new and first.fixes == ()
    assert first.category == "tool_error" and "<port>" in first.pattern and "10.0.0.5" not in first.pattern

    # 2. The agent changes a parameter and the same tool succeeds in the same session: observed fix.
    ok = mem.tool_result("psql", {"host": "db1", "port": 6432}, result="ok", session="a")
    assert ok.ok and ok.fixes == () and ok.id == first.id and ok.fix_id is not None  # the recovery it made

    # 3. Next occurrence, other session, other host/ip/port: same pattern, the fix is suggested.
    second = mem.tool_result(
        "psql",
        {"host": "db7", "port": 5432},
        error=PG_REFUSED.format(host="db7", ip="192.168.3.9", port=5433),
        session="b",
    )
    assert second.id == first.id and second.occurrences == 2 and not second.is_new
    [fix] = second.fixes
    assert fix.kind == "direct" and fix.description == "psql: set port=6432 (was 5432)"
    assert fix.confidence == pytest.approx(after_outcomes([True], rules)) and not fix.auto_apply

    # 4. It keeps working: after one more success it is auto_apply (0.5 + 0.1 + 0.1 ≥ 0.7).
    mem.tool_result("psql", {"host": "db7", "port": 6432}, session="b")
    third = mem.tool_result(
        "psql",
        {"host": "db9", "port": 5432},
        error=PG_REFUSED.format(host="db9", ip="10.1.1.1", port=5432),
        session="c",
    )
    assert third.fixes[0].auto_apply and third.auto_fix is not None
    assert third.fixes[0].confidence == pytest.approx(after_outcomes([True, True], rules))
    edge = _edge(driver, ns, first.id, fix.fix_id)
    assert (edge["successes"], edge["failures"], edge["alpha"], edge["beta"]) == (2, 0, 3.0, 1.0)

    # 5. A similar error of the same family (same tool, different wording) borrows the fix, attenuated.
    similar = mem.tool_result(
        "psql",
        {"host": "db3", "port": 5432},
        error="could not connect to server: Connection refused. Is the server running on "
        'host "db3" (10.0.0.9) and accepting TCP/IP connections on port 5432?',
        session="d",
    )
    assert similar.id != first.id
    borrowed = [f for f in similar.fixes if f.fix_id == fix.fix_id]
    assert borrowed, f"similar error should borrow the fix; got {similar.fixes}"
    assert borrowed[0].kind == "similar" and borrowed[0].via_error_id == first.id
    assert 0 < borrowed[0].similarity < 1
    assert borrowed[0].confidence == pytest.approx(third.fixes[0].confidence * borrowed[0].similarity)

    # 6. The fix fails twice: its confidence drops below auto-apply and stays clamped.
    mem.fix_applied(third, fix.description, success=False)
    out = mem.fix_applied(third.id, fix.description, success=False, session=third.session)  # by id: counts again
    assert out.confidence == pytest.approx(after_outcomes([True, True, False, False], rules))
    again = mem.tool_result(
        "psql",
        {"host": "db1", "port": 5432},
        error=PG_REFUSED.format(host="db1", ip="10.0.0.5", port=5432),
        session="e",
    )
    assert not again.fixes[0].auto_apply and again.fixes[0].confidence == pytest.approx(out.confidence)


def test_success_propagates_to_similar_errors_with_the_same_fix(mem: KGMem, driver, ns: str) -> None:
    rules = ConfidenceRules.from_settings(mem.settings.learning)
    a = mem.tool_result(
        "pip",
        {"index": "default"},
        error="pip._vendor.urllib3.exceptions.ReadTimeoutError: HTTPSConnectionPool("
        "host='files.pythonhosted.org', port=443): Read timed out.",
    )
    b = mem.tool_result(
        "pip",
        {"index": "default"},
        error="ReadTimeoutError: HTTPSConnectionPool(host='pypi.org', port=443): Read timed out. (read timeout=15)",
    )
    records, _, _ = driver.execute_query(
        "MATCH (:ErrorPattern {ns: $ns, id: $a})-[s:SIMILAR_TO]-(:ErrorPattern {ns: $ns, id: $b}) RETURN s.score AS s",
        ns=ns,
        a=a.id,
        b=b.id,
    )
    assert records, "the two read timeouts should be linked"
    score = records[0]["s"]
    fix = "pip: set timeout=60 (was 15)"
    mem.resolve(b, fix, success=True)  # the fix is known on b ...
    fix_id = mem.resolve(a, fix, success=True).fix_id  # ... and on a
    before = _edge(driver, ns, b.id, fix_id)["confidence"]
    after_a = mem.resolve(a.id, fix, success=True)  # another success on a (by id: counts) propagates to b
    assert after_a.propagated == 1
    after_b = _edge(driver, ns, b.id, after_a.fix_id)["confidence"]
    assert after_b == pytest.approx(propagated(before, score, rules))


def test_user_correction_outranks_learnt_fixes(mem: KGMem, ns: str) -> None:
    err = "fatal: not a git repository (or any of the parent directories): .git"
    obs = mem.tool_result("git", {"cwd": "/tmp/x"}, error=err, session="s")
    for _ in range(4):
        mem.resolve(
            obs.id, "git: set cwd=/work/repo (was /tmp/x)", success=True, session=obs.session
        )  # by id: each counts
    mem.correction("Run git commands from the repository root; use `git -C <repo>`", error=obs)
    again = mem.tool_result("git", {"cwd": "/tmp/y"}, error=err, session="t")
    assert again.fixes[0].source == "user" and again.fixes[0].auto_apply
    assert again.fixes[1].source == "explicit" and again.fixes[1].confidence == pytest.approx(0.9)
    learnt = mem.learnings(type="correction")
    assert any("git -C" in (item.get("content") if isinstance(item, dict) else item.content) for item in learnt)


def test_bad_input_is_rejected_with_the_field_name(mem: KGMem) -> None:
    from kgmem.errors import ValidationError

    with pytest.raises(ValidationError, match="tool"):
        mem.tool_result("", error="x")
    with pytest.raises(ValidationError, match="params"):
        mem.tool_result("t", ["x"], error="x")  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="error"):
        mem.resolve("0" * 32, "do something")
    with pytest.raises(ValidationError, match="fix"):
        mem.resolve("some error", " ", tool="t")
    with pytest.raises(ValidationError, match=r"events\[1\]\.tool"):
        mem.tool_results([{"tool": "a", "error": "x"}, {"tool": ""}])

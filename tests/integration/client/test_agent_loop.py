"""The agent loop of the README on the real stack: an Observation for every tool result,
one recovery = one Fix, a success after a success boosts the fix used, keyword-only arguments."""

from __future__ import annotations

import pytest

from kgmem import KGMem
from kgmem.errors import PositionalArgumentError, ValidationError

REFUSED = "could not connect to server: Connection refused (10.0.0.5:5432)"


def _fixes(driver, ns: str, error_id: str) -> list[dict]:
    records, _, _ = driver.execute_query(
        """MATCH (:ErrorPattern {ns: $ns, id: $id})-[r:RESOLVED_BY]->(f:Fix)
           RETURN f.id AS id, f.description AS description, r.source AS source, r.successes AS successes,
                  r.failures AS failures, r.confidence AS confidence ORDER BY description""",
        ns=ns,
        id=error_id,
    )
    return [r.data() for r in records]


def _fix_nodes(driver, ns: str) -> int:
    records, _, _ = driver.execute_query("MATCH (f:Fix {ns: $ns}) RETURN count(f) AS n", ns=ns)
    return records[0]["n"]


def test_every_tool_result_returns_an_observation(mem: KGMem) -> None:
    plain = mem.tool_result("ls", {"path": "/"}, result=["etc"])  # no session: no round trip
    assert plain.ok and plain.fixes == () and plain.id == "" and plain.error_id is None and plain.fix_id is None
    failed = mem.tool_result("psql", {"port": 5432}, error=REFUSED, session="s")
    assert not failed.ok and failed.session == "s" and failed.error_id == failed.id
    in_session = mem.tool_result("git", {}, session="s")  # a success of another tool recovers nothing
    assert in_session.ok and in_session.id == "" and in_session.fix_id is None
    with pytest.raises(ValidationError, match="recovered no error"):
        mem.resolve(plain, "nothing to fix")


def test_observed_then_resolved_recovery_is_one_fix_with_the_callers_name(mem: KGMem, driver, ns: str) -> None:
    obs = mem.tool_result("psql", {"port": 5432}, error=REFUSED, session="run-1")
    ok = mem.tool_result("psql", {"port": 6432}, session="run-1")
    assert ok.ok and ok.id == obs.id and ok.fix_id is not None
    [observed] = _fixes(driver, ns, obs.id)
    assert observed["source"] == "observed" and observed["id"] == ok.fix_id and observed["successes"] == 1
    assert mem.vectors.get(ns, "fix", [ok.fix_id])  # the observed fix was indexed

    outcome = mem.resolve(obs, "use the pgbouncer port 6432")
    [named] = _fixes(driver, ns, obs.id)  # one recovery = one Fix
    assert named["description"] == "use the pgbouncer port 6432" and named["source"] == "explicit"
    assert named["successes"] == 1 and named["failures"] == 0  # counted once, not twice
    assert outcome.fix_id == named["id"] and outcome.successes == 1
    assert _fix_nodes(driver, ns) == 1  # the observed Fix node, used by nothing else, is gone ...
    assert mem.vectors.get(ns, "fix", [ok.fix_id]) == {}  # ... and so is its vector

    again = mem.resolve(obs, "use the pgbouncer port 6432")  # the same recovery, confirmed twice
    assert again.successes == 1 and len(_fixes(driver, ns, obs.id)) == 1


def test_resolve_confirming_the_observed_description_counts_once(mem: KGMem, driver, ns: str) -> None:
    obs = mem.tool_result("psql", {"port": 5432}, error=REFUSED, session="run-2")
    mem.tool_result("psql", {"port": 6432}, session="run-2")
    [observed] = _fixes(driver, ns, obs.id)
    out = mem.resolve(obs, observed["description"])
    [fix] = _fixes(driver, ns, obs.id)
    assert fix["id"] == observed["id"] and fix["successes"] == 1 and fix["source"] == "explicit"
    assert out.confidence == pytest.approx(observed["confidence"])


def test_resolved_then_observed_recovery_is_one_fix(mem: KGMem, driver, ns: str) -> None:
    obs = mem.tool_result("psql", {"port": 5432}, error=REFUSED, session="run-3")
    mem.resolve(obs, "start the database container first")  # declared while the failure is open
    ok = mem.tool_result("psql", {"port": 5432}, session="run-3")  # the retry works
    [fix] = _fixes(driver, ns, obs.id)
    assert fix["description"] == "start the database container first" and fix["successes"] == 1
    assert ok.id == obs.id and ok.fix_id == fix["id"]
    assert _fix_nodes(driver, ns) == 1  # no "retry with the same parameters" fix beside it


def test_success_after_success_boosts_the_fix_used_once(mem: KGMem, driver, ns: str) -> None:
    rules = mem.learning.rules
    obs = mem.tool_result("psql", {"port": 5432}, error=REFUSED, session="run-4")
    mem.tool_result("psql", {"port": 6432}, session="run-4")  # recovery (+boost)
    [after_recovery] = _fixes(driver, ns, obs.id)
    held = mem.tool_result("psql", {"port": 6432}, session="run-4")  # the fix held (+boost)
    assert held.ok and held.fix_id == after_recovery["id"]
    [after_hold] = _fixes(driver, ns, obs.id)
    assert after_hold["successes"] == 2
    assert after_hold["confidence"] == pytest.approx(after_recovery["confidence"] + rules.boost)
    quiet = mem.tool_result("psql", {"port": 6432}, session="run-4")  # once per recovery
    assert quiet.fix_id is None and _fixes(driver, ns, obs.id)[0]["successes"] == 2
    other = mem.tool_result("psql", {"port": 6432}, session="run-5")  # another session used no fix
    assert other.fix_id is None and _fixes(driver, ns, obs.id)[0]["successes"] == 2


def test_a_new_failure_supersedes_the_recovery_it_follows(mem: KGMem, driver, ns: str) -> None:
    first = mem.tool_result("psql", {"port": 5432}, error=REFUSED, session="run-6")
    mem.tool_result("psql", {"port": 6432}, session="run-6")
    second = mem.tool_result(
        "psql", {"port": 6432}, error="FATAL: password authentication failed for user bob", session="run-6"
    )
    ok = mem.tool_result("psql", {"port": 6432, "user": "alice"}, session="run-6")  # recovers the second
    assert ok.id == second.id
    held = mem.tool_result("psql", {"port": 6432, "user": "alice"}, session="run-6")
    assert held.id == second.id  # the hold goes to the last recovery, never to the superseded one
    assert _fixes(driver, ns, first.id)[0]["successes"] == 1


def test_ambiguous_arguments_are_keyword_only_with_a_clear_error(mem: KGMem) -> None:
    with pytest.raises(PositionalArgumentError, match=r"turn\(\): session, role, text"):
        mem.turn("run-1", "user", "hello")  # type: ignore[misc]
    with pytest.raises(TypeError):  # also a TypeError, like any bad call
        mem.resolve("abc", "fix", True)  # type: ignore[misc]
    assert mem.turn(session="run-1", role="user", text="hello")

"""A judgement counts once: a fix outcome is one judgement per (error occurrence, fix)
(kgmem/learning/judgement.py, ``learning/apply_events`` ``$judgements``). Real Neo4j + Chroma +
embedding model, through ``KGMem`` and ``AsyncKGMem``."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from kgmem.errors import ValidationError

E = 'FATAL: password authentication failed for user "app"'
FIX = "reset the app password"


def _edge(driver, ns: str, error_id: str) -> dict:
    records, _, _ = driver.execute_query(
        "MATCH (:ErrorPattern {ns: $ns, id: $id})-[r:RESOLVED_BY]->(f:Fix {ns: $ns}) "
        "RETURN f.description AS fix, r.successes AS successes, r.failures AS failures",
        ns=ns,
        id=error_id,
    )
    assert len(records) == 1, records
    return dict(records[0])


def test_one_occurrence_reported_three_times_counts_once(client, driver, ns: str) -> None:
    obs = client.tool_result("psql", {"q": 1}, error=E, session="s1")
    assert obs.occurrence
    outs = [client.fix_applied(obs, FIX, success=True) for _ in range(3)]
    assert [(o.successes, o.counted) for o in outs] == [(1, True), (1, False), (1, False)]
    assert outs[1].confidence == outs[0].confidence and outs[2].propagated == 0
    assert _edge(driver, ns, obs.id) == {"fix": FIX, "successes": 1, "failures": 0}

    again = client.tool_result("psql", {"q": 1}, error=E, session="s1")  # a second occurrence counts
    assert again.id == obs.id and again.occurrence != obs.occurrence
    assert client.resolve(again, FIX).successes == 2
    assert client.resolve(again, FIX).counted is False
    assert _edge(driver, ns, obs.id)["successes"] == 2


def test_a_repeat_with_the_opposite_outcome_changes_nothing(client, driver, ns: str) -> None:
    obs = client.tool_result("psql", {}, error=E)
    assert client.fix_applied(obs, FIX, success=True).counted
    repeat = client.fix_applied(obs, FIX, success=False)
    assert (repeat.counted, repeat.successes, repeat.failures) == (False, 1, 0)
    other = client.fix_applied(obs, "grant the app role LOGIN", success=False)  # another fix: its own judgement
    assert (other.counted, other.failures) == (True, 1)


def test_another_client_and_an_occurrence_given_as_a_string_count_once(
    mem, open_client_of, settings, driver, embedder, ns: str
) -> None:
    obs = mem.tool_result("psql", {}, error=E)
    assert mem.fix_applied(obs, FIX, success=True).counted
    other = open_client_of("sync", settings, driver, embedder)
    try:
        assert other.fix_applied(obs, FIX, success=True).counted is False
        # what an MCP agent holds: the error id and the occurrence, as strings
        out = other.resolve(obs.id, FIX, occurrence=obs.occurrence)
        assert (out.counted, out.successes) == (False, 1)
    finally:
        other.close()
    assert _edge(driver, ns, obs.id)["successes"] == 1


def test_retries_racing_from_threads_count_once(mem, driver, ns: str) -> None:
    obs = mem.tool_result("psql", {}, error=E)
    with ThreadPoolExecutor(6) as pool:
        outs = list(pool.map(lambda _: mem.fix_applied(obs, FIX, success=True), range(6)))
    assert sum(o.counted for o in outs) == 1
    assert _edge(driver, ns, obs.id)["successes"] == 1


def test_a_report_without_an_occurrence_counts_each_time(mem, driver, ns: str) -> None:
    obs = mem.tool_result("psql", {}, error=E)
    assert [mem.resolve(obs.id, FIX).successes for _ in range(2)] == [1, 2]
    assert mem.resolve(E, FIX, tool="psql").successes == 3  # a message: no occurrence either


def test_a_bad_occurrence_is_refused_and_writes_nothing(mem, driver, ns: str) -> None:
    obs = mem.tool_result("psql", {}, error=E)
    with pytest.raises(ValidationError, match="occurrence"):
        mem.fix_applied(obs.id, FIX, success=True, occurrence="  ")
    records, _, _ = driver.execute_query(
        "MATCH (:ErrorPattern {ns: $ns})-[r:RESOLVED_BY]->() RETURN count(r) AS n", ns=ns
    )
    assert records[0]["n"] == 0

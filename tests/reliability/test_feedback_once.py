"""A judgement counts once, however often it is retried: ``feedback`` on one query id replayed N
times (sequentially, from threads, from two processes, through the async client and the CLI)
updates the posteriors once; feedback on a query whose session has ended reaches the global
posteriors at once. Real Neo4j, Chroma and embedding model."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from kgmem import AsyncKGMem

ROOT = Path(__file__).resolve().parents[2]
WORKER = Path(__file__).resolve().parent / "feedback_worker.py"

FACTS = [
    "The staging database is restored from the nightly snapshot at 02:00.",
    "Staging database credentials rotate every Monday morning.",
    "Office plants are watered on Fridays by the facilities team.",
]
QUERY = "staging database"
SUCCESS = 0.8


@pytest.fixture
def facts(mem, ns):
    ids = [mem.add_knowledge(text, "fact", ns=ns)["id"] for text in FACTS]
    mem.wait_for_analysis(30)
    return ids


def usage(driver, item_id):
    """A Knowledge item's global (alpha, beta) as stored (None, None: never judged)."""
    records, _, _ = driver.execute_query("MATCH (n:Knowledge {id: $id}) RETURN n.alpha AS a, n.beta AS b", id=item_id)
    return records[0]["a"], records[0]["b"]


def session_nodes(driver, ns):
    """(overlays, session states) left in ``ns``."""
    records, _, _ = driver.execute_query(
        "OPTIONAL MATCH (o:KgmemOverlay {ns: $ns}) WITH count(o) AS o "
        "OPTIONAL MATCH (s:KgmemSessionState {ns: $ns}) RETURN o, count(s) AS s",
        ns=ns,
    )
    return records[0]["o"], records[0]["s"]


def search(mem, ns, session=None):
    result = mem.search(QUERY, ns=ns, k=10, session=session, kinds="knowledge")
    assert len(result.hits) >= 2
    return result


def test_replayed_1_2_and_5_times_each_query_counts_once(mem, ns, facts, driver):
    target = facts[0]
    replays = (1, 2, 5)
    for n in replays:
        result = search(mem, ns)
        assert target in [h.id for h in result.hits]
        judged = [mem.feedback(result.query_id, used=[target], outcome="success") for _ in range(n)]
        assert [j.counted for j in judged] == [True] + [False] * (n - 1)
        assert [j.calls for j in judged] == list(range(1, n + 1))
        assert all(j.target == "global" for j in judged)
        assert len(judged[0].posteriors) == len(result.hits) and all(j.posteriors == [] for j in judged[1:])
    alpha, _ = usage(driver, target)
    # one success per query (3 queries), not one per call (8 calls: 1 + 0.8 * 8 = 7.4)
    assert alpha == pytest.approx(1.0 + SUCCESS * len(replays))


def test_a_repeat_with_other_arguments_changes_nothing_either(mem, ns, facts, driver):
    result = search(mem, ns)
    first, other = result.hits[0].id, result.hits[1].id
    assert mem.feedback(result.query_id, used=[first], outcome="positive").counted
    before = {h.id: usage(driver, h.id) for h in result.hits}
    again = mem.feedback(result.query_id, used=[other], outcome="negative")
    assert not again.counted and again.target == "global"
    assert {h.id: usage(driver, h.id) for h in result.hits} == before  # the first judgement stands


def test_concurrent_retries_from_threads_count_once(mem, ns, facts, driver):
    target = facts[1]
    plain, in_session = search(mem, ns), search(mem, ns, session="T")
    for result in (plain, in_session):
        barrier = threading.Barrier(8)
        judged, errors = [], []

        def judge(result=result, barrier=barrier, judged=judged, errors=errors):
            barrier.wait()
            try:
                judged.append(mem.feedback(result.query_id, used=[target], outcome="success"))
            except Exception as exc:  # noqa: BLE001 - surfaced by the assert below
                errors.append(exc)

        threads = [threading.Thread(target=judge) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors
        assert sorted(j.counted for j in judged) == [False] * 7 + [True]
        assert max(j.calls for j in judged) == 8  # every call went through the lock (none lost)
    records, _, _ = driver.execute_query(
        "MATCH (o:KgmemOverlay {ns: $ns, session: 'T', item_id: $id}) RETURN o.d_alpha AS d", ns=ns, id=target
    )
    assert records[0]["d"] == pytest.approx(SUCCESS)  # the session's overlay got it once
    mem.end_session("T", ns=ns)
    assert usage(driver, target)[0] == pytest.approx(1.0 + 2 * SUCCESS)  # plain + merged overlay: once each


def test_two_processes_racing_on_one_query_count_once(mem, ns, facts, driver, settings):
    target = facts[0]
    result = search(mem, ns)
    mem.retrieval.flush()  # the query log entry is in Neo4j: the other processes find the query there
    env = {**os.environ, "PYTHONPATH": str(ROOT), "KGMEM_NAMESPACE": ns}
    start_at = time.time() + 8.0  # both processes are connected by then, and fire together
    procs = [
        subprocess.Popen(
            [sys.executable, str(WORKER), result.query_id, target, "success", "4", str(start_at)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=ROOT,
        )
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), [err for _, err in outs]
    reports = [json.loads(out.strip().splitlines()[-1]) for out, _ in outs]
    assert [r["errors"] for r in reports] == [[], []]
    counted = [c for r in reports for c in r["counted"]]
    assert len(counted) == 8 and counted.count(True) == 1
    assert usage(driver, target)[0] == pytest.approx(1.0 + SUCCESS)
    # and this process, retrying after the others, is refused too
    assert not mem.feedback(result.query_id, used=[target], outcome="success").counted


def test_the_async_client_counts_once(mem, ns, facts, driver, settings, embedder):
    target = facts[1]

    async def main():
        async with AsyncKGMem(settings, embedder=embedder) as amem:
            result = await amem.search(QUERY, k=10, kinds="knowledge")
            assert target in [h.id for h in result.hits]
            return await asyncio.gather(
                *(amem.feedback(result.query_id, used=[target], outcome="success") for _ in range(5))
            )

    judged = asyncio.run(main())
    assert sorted(j.counted for j in judged) == [False] * 4 + [True]
    assert usage(driver, target)[0] == pytest.approx(1.0 + SUCCESS)


def test_the_cli_counts_once(mem, ns, facts, driver, settings):
    target = facts[0]
    result = search(mem, ns)
    mem.retrieval.flush()
    from click.testing import CliRunner

    from kgmem.cli import main

    env = {"KGMEM_NAMESPACE": ns, "KGMEM_CHROMA__PATH": str(settings.chroma.path)}

    def cli(*args):  # in-process: the command's code is the point (another process: the racing test above)
        argv = ["feedback", result.query_id, "--used", target, "--outcome", "success", *args]
        return CliRunner().invoke(main, argv, env=env)

    first, second = cli("--json"), cli()
    assert first.exit_code == 0 and second.exit_code == 0, first.output + second.output
    assert json.loads(first.stdout.splitlines()[-1])["counted"] is True
    assert "already judged" in second.stdout
    assert usage(driver, target)[0] == pytest.approx(1.0 + SUCCESS)


def test_feedback_after_the_session_ended_reaches_the_global_posteriors_at_once(mem, ns, facts, driver):
    target = facts[0]
    early, late = search(mem, ns, session="E"), search(mem, ns, session="E")
    assert mem.feedback(early.query_id, used=[target], outcome="success").target == "overlay"
    assert usage(driver, target) == (None, None)  # in the session's overlay, not global yet
    mem.end_session("E", ns=ns)
    assert usage(driver, target)[0] == pytest.approx(1.0 + SUCCESS)
    judged = mem.feedback(late.query_id, used=[target], outcome="success")  # after the end: straight to global
    assert judged.counted and judged.target == "global"
    assert usage(driver, target)[0] == pytest.approx(1.0 + 2 * SUCCESS)
    assert session_nodes(driver, ns) == (0, 0)  # no overlay left waiting for the 24 h expiry
    # a retry of the early judgement, merged already, is not applied again
    assert not mem.feedback(early.query_id, used=[target], outcome="success").counted
    assert usage(driver, target)[0] == pytest.approx(1.0 + 2 * SUCCESS)
    # the session resumed: a new query of it goes to a new overlay again
    resumed = search(mem, ns, session="E")
    assert mem.feedback(resumed.query_id, used=[target], outcome="success").target == "overlay"


def test_feedback_racing_the_session_end_is_counted_once_and_left_nowhere(mem, ns, facts, driver):
    target = facts[1]
    results = [search(mem, ns, session="R") for _ in range(4)]
    mem.retrieval.flush()
    barrier = threading.Barrier(len(results) + 1)
    errors = []

    def judge(result):
        barrier.wait()
        try:
            assert mem.feedback(result.query_id, used=[target], outcome="success").counted
        except Exception as exc:  # noqa: BLE001 - surfaced by the assert below
            errors.append(exc)

    def end():
        barrier.wait()
        try:
            mem.retrieval.end_session(ns, "R")
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=judge, args=(r,)) for r in results] + [threading.Thread(target=end)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    # each judgement landed in the overlay the merge took, or went global after it: never both, never lost
    assert usage(driver, target)[0] == pytest.approx(1.0 + SUCCESS * len(results))
    assert session_nodes(driver, ns) == (0, 0)

"""BQAR on the real stack: session overlays, three-way merge (also concurrent), shift reset,
causal attribution, and feedback from a second process through the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from kgmem.retrieval import UnknownQuery

ROOT = Path(__file__).resolve().parents[3]

FACTS = [
    "The staging database is restored from the nightly snapshot at 02:00.",
    "Staging database credentials rotate every Monday morning.",
    "The staging database runs PostgreSQL 15 on a single replica.",
    "Office plants are watered on Fridays by the facilities team.",
]
QUERY = "staging database"


@pytest.fixture
def facts(mem, ns):
    ids = [mem.add_knowledge(text, "fact", ns=ns)["id"] for text in FACTS]
    mem.wait_for_analysis(30)
    return ids


def posterior(mem, ns, item_id, session=None, query=QUERY):
    """The usage posterior of ``item_id`` as a search (in ``session``) ranks it."""
    result = mem.search(query, ns=ns, k=10, session=session, kinds="knowledge")
    by_id = {h.id: h for h in result.hits}
    assert item_id in by_id, f"{item_id} not retrieved"
    return by_id[item_id].breakdown["posterior"], result


def global_counts(driver, item_id):
    records, _, _ = driver.execute_query("MATCH (n:Knowledge {id: $id}) RETURN n.alpha AS a, n.beta AS b", id=item_id)
    return records[0]["a"], records[0]["b"]


def test_two_sessions_do_not_see_each_others_feedback_until_merge(mem, ns, facts, driver):
    target = facts[0]
    p0, _ = posterior(mem, ns, target)
    assert p0 == pytest.approx(0.5)
    _, ra = posterior(mem, ns, target, session="A")
    mem.feedback(ra.query_id, used=[target], outcome="positive")
    _, rb = posterior(mem, ns, target, session="B")
    mem.feedback(rb.query_id, used=[target], outcome="negative")

    pa, _ = posterior(mem, ns, target, session="A")
    pb, _ = posterior(mem, ns, target, session="B")
    pg, _ = posterior(mem, ns, target)
    assert pa > 0.6 and pb < 0.4 and pg == pytest.approx(0.5)  # each session at once, global untouched
    assert global_counts(driver, target) == (None, None)

    merges = mem.retrieval.end_session(ns, "A")
    assert any(m.merged.alpha == pytest.approx(2.0) for m in merges)
    pg_after_a, _ = posterior(mem, ns, target)
    pb_after_a, _ = posterior(mem, ns, target, session="B")
    assert pg_after_a > 0.6  # A's evidence is global now
    assert pb_after_a < pg_after_a  # B still sees its own negative on top
    mem.end_session("B", ns=ns)  # the client path: analysis close + overlay merge
    alpha, beta = global_counts(driver, target)
    # prior 1/1, A: +1.0 on alpha, B: +1.0 on beta; the other hits' -0.1 went to their own betas
    assert alpha == pytest.approx(2.0) and beta == pytest.approx(2.0)


def test_concurrent_merges_lose_nothing(mem, ns, facts, driver):
    target = facts[1]
    sessions = [f"s{i}" for i in range(6)]
    for i, s in enumerate(sessions):
        _, r = posterior(mem, ns, target, session=s)
        mem.feedback(r.query_id, used=[target], outcome="success" if i % 2 == 0 else "negative")
    errors = []

    def merge(s):
        try:
            mem.retrieval.end_session(ns, s)
        except Exception as exc:  # noqa: BLE001 - surfaced by the assert below
            errors.append(exc)

    threads = [threading.Thread(target=merge, args=(s,)) for s in sessions]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    alpha, beta = global_counts(driver, target)
    assert alpha == pytest.approx(1.0 + 3 * 0.8) and beta == pytest.approx(1.0 + 3 * 1.0)
    records, _, _ = driver.execute_query("MATCH (o:KgmemOverlay {ns: $ns}) RETURN count(o) AS n", ns=ns)
    assert records[0]["n"] == 0  # merged overlays are gone


def test_a_conversation_shift_resets_the_overlay_view_but_not_the_evidence(mem, ns, facts, driver):
    target = facts[2]
    for q in ("staging database version", "which postgres version does staging run", QUERY):
        _, r = posterior(mem, ns, target, session="S", query=q)
    mem.feedback(r.query_id, used=[target], outcome="positive")
    boosted, _ = posterior(mem, ns, target, session="S")
    assert boosted > 0.6
    assert mem.retrieval.session_state(ns, "S").shifts == 0
    mem.search("who waters the office plants on fridays", ns=ns, session="S", kinds="knowledge")  # new topic
    assert mem.retrieval.session_state(ns, "S").shifts == 1
    after, _ = posterior(mem, ns, target, session="S")
    assert after == pytest.approx(0.5)  # the view was reset (damping 0)
    mem.retrieval.end_session(ns, "S")
    alpha, _ = global_counts(driver, target)
    assert alpha == pytest.approx(2.0)  # the evidence itself still reached the global posterior


def test_outcome_is_attributed_to_the_cited_hits(mem, ns, facts, driver):
    ctx = mem.context(QUERY, ns=ns, kinds="knowledge", max_tokens=400)
    assert len(ctx.citations) >= 3
    cited = ctx.citations[1]
    mem.feedback(ctx.query_id, outcome="success", response="It restores at 02:00 [2].")
    got = {c.id: global_counts(driver, c.id) for c in ctx.citations}
    assert got[cited.id] == (pytest.approx(1.8), pytest.approx(1.0))
    others = [v for k, v in got.items() if k != cited.id]
    assert all(v == (pytest.approx(1.2), pytest.approx(1.0)) for v in others)  # included, not cited: +0.2


def _cli(settings, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "KGMEM_NAMESPACE": settings.namespace,
           "KGMEM_CHROMA__PATH": str(settings.chroma.path)}
    return subprocess.run([sys.executable, "-m", "kgmem.cli", *args], capture_output=True, text=True, env=env,
                          timeout=300, cwd=ROOT)


def test_feedback_from_a_second_process(mem, ns, facts, driver, settings):
    if settings.chroma.path is None:
        pytest.skip("needs embedded Chroma shared through a path")
    mem.retrieval.flush()
    # search in one process, feedback in another (the query id lives in Neo4j)
    out = _cli(settings, "search", QUERY, "--kinds", "knowledge", "--json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.splitlines()[0])
    used = result["hits"][0]["id"]
    done = _cli(settings, "feedback", result["query_id"], "--used", used, "--outcome", "success", "--json")
    assert done.returncode == 0, done.stderr
    assert global_counts(driver, used) == (pytest.approx(1.8), pytest.approx(1.0))
    # and a query of this process, judged from the CLI
    local = mem.search("office plants", ns=ns, kinds="knowledge")
    mem.retrieval.flush()
    fb = _cli(settings, "feedback", local.query_id, "--used", local.hits[0].id, "--outcome", "negative")
    assert fb.returncode == 0, fb.stderr
    assert global_counts(driver, local.hits[0].id)[1] == pytest.approx(2.0)
    bad = _cli(settings, "feedback", "no-such-query", "--outcome", "success")
    assert bad.returncode == 1 and "unknown or has expired" in bad.stderr
    with pytest.raises(UnknownQuery):
        mem.feedback("no-such-query", outcome="success")

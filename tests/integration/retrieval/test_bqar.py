"""BQAR on the real stack: session overlays, three-way merge (also concurrent), shift reset,
causal attribution, and feedback from a second process through the CLI."""

from __future__ import annotations

import json
import threading

import pytest

from kgmem.retrieval import UnknownQuery

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


def test_two_sessions_do_not_see_each_others_feedback_until_merge(mem, ns, facts, driver, counts):
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
    assert counts(target) == (None, None)

    merges = mem.retrieval.end_session(ns, "A")
    assert any(m.merged.alpha == pytest.approx(2.0) for m in merges)
    pg_after_a, _ = posterior(mem, ns, target)
    pb_after_a, _ = posterior(mem, ns, target, session="B")
    assert pg_after_a > 0.6  # A's evidence is global now
    assert pb_after_a < pg_after_a  # B still sees its own negative on top
    mem.end_session("B", ns=ns)  # the client path: analysis close + overlay merge
    alpha, beta = counts(target)
    # prior 1/1, A: +1.0 on alpha, B: +1.0 on beta; the other hits' -0.1 went to their own betas
    assert alpha == pytest.approx(2.0) and beta == pytest.approx(2.0)


def test_concurrent_merges_lose_nothing(mem, ns, facts, driver, counts):
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
    alpha, beta = counts(target)
    assert alpha == pytest.approx(1.0 + 3 * 0.8) and beta == pytest.approx(1.0 + 3 * 1.0)
    records, _, _ = driver.execute_query("MATCH (o:KgmemOverlay {ns: $ns}) RETURN count(o) AS n", ns=ns)
    assert records[0]["n"] == 0  # merged overlays are gone


def test_a_conversation_shift_resets_the_overlay_view_but_not_the_evidence(mem, ns, facts, driver, counts):
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
    alpha, _ = counts(target)
    assert alpha == pytest.approx(2.0)  # the evidence itself still reached the global posterior


def test_a_shift_writes_nothing_on_the_search_path(mem, ns, facts):
    """Shift detection costs the search no synchronous write: the search thread only reads (the query
    log, which also stores the new shift state, is written by the background writer)."""
    for q in ("staging database version", "which postgres version does staging run", QUERY):
        mem.search(q, ns=ns, session="W", kinds="knowledge")
    mem.retrieval.flush()
    caller = threading.current_thread()
    writes: list[str] = []
    write = mem.graph.write

    def spy(name, **params):
        if threading.current_thread() is caller:
            writes.append(name)
        return write(name, **params)

    mem.graph.write = spy
    try:
        mem.search("who waters the office plants on fridays", ns=ns, session="W", kinds="knowledge")
    finally:
        mem.graph.write = write
    assert mem.retrieval.session_state(ns, "W").shifts == 1
    assert writes == []


def test_feedback_on_a_query_before_a_shift_is_damped_but_merged(mem, ns, facts, counts):
    target = facts[2]
    for q in ("staging database version", "which postgres version does staging run"):
        _, before = posterior(mem, ns, target, session="L", query=q)
    mem.search("who waters the office plants on fridays", ns=ns, session="L", kinds="knowledge")  # shift
    assert mem.retrieval.session_state(ns, "L").shifts == 1
    mem.feedback(before.query_id, used=[target], outcome="positive")  # late: judges the old topic
    late, _ = posterior(mem, ns, target, session="L")
    assert late == pytest.approx(0.5)  # damped (factor 0) for the shift after its query
    _, now = posterior(mem, ns, target, session="L")
    mem.feedback(now.query_id, used=[target], outcome="positive")  # a query of the current topic counts
    assert posterior(mem, ns, target, session="L")[0] > 0.6
    mem.retrieval.end_session(ns, "L")
    assert counts(target)[0] == pytest.approx(3.0)  # both signals reach the global posterior


def test_feedback_on_a_search_without_shift_detection_counts_at_the_current_epoch(mem, ns, facts):
    target = facts[2]
    for q in ("staging database version", "which postgres version does staging run"):
        mem.search(q, ns=ns, session="F", kinds="knowledge")
    mem.search("who waters the office plants on fridays", ns=ns, session="F", kinds="knowledge")  # shift
    assert mem.retrieval.session_state(ns, "F").shifts == 1
    mem.retrieval.flush()  # the session's stored epoch (written behind) is what such feedback counts at
    fast = mem.search(QUERY, ns=ns, session="F", kinds="knowledge", preset="fast")  # no quality, no detection
    assert target in [h.id for h in fast.hits]
    mem.feedback(fast.query_id, used=[target], outcome="positive")
    assert posterior(mem, ns, target, session="F")[0] > 0.6  # not damped away as if it predated the shift


def test_outcome_is_attributed_to_the_cited_hits(mem, ns, facts, driver, counts):
    ctx = mem.context(QUERY, ns=ns, kinds="knowledge", max_tokens=400)
    assert len(ctx.citations) >= 3
    cited = ctx.citations[1]
    mem.feedback(ctx.query_id, outcome="success", response="It restores at 02:00 [2].")
    got = {c.id: counts(c.id) for c in ctx.citations}
    assert got[cited.id] == (pytest.approx(1.8), pytest.approx(1.0))
    others = [v for k, v in got.items() if k != cited.id]
    assert all(v == (pytest.approx(1.2), pytest.approx(1.0)) for v in others)  # included, not cited: +0.2


def test_feedback_from_a_second_process(mem, ns, facts, settings, counts, run_cli):
    if settings.chroma.path is None:
        pytest.skip("needs embedded Chroma shared through a path")
    mem.retrieval.flush()
    # search in one process, feedback in another (the query id lives in Neo4j)
    out = run_cli("search", QUERY, "--kinds", "knowledge", "--json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.splitlines()[0])
    used = result["hits"][0]["id"]
    done = run_cli("feedback", result["query_id"], "--used", used, "--outcome", "success", "--json")
    assert done.returncode == 0, done.stderr
    assert counts(used) == (pytest.approx(1.8), pytest.approx(1.0))
    # and a query of this process, judged from the CLI
    local = mem.search("office plants", ns=ns, kinds="knowledge")
    mem.retrieval.flush()
    fb = run_cli("feedback", local.query_id, "--used", local.hits[0].id, "--outcome", "negative")
    assert fb.returncode == 0, fb.stderr
    assert counts(local.hits[0].id)[1] == pytest.approx(2.0)
    elsewhere = run_cli("feedback", local.query_id, "--ns", f"{ns}-other", "--outcome", "success")
    assert elsewhere.returncode == 1 and "unknown or has expired" in elsewhere.stderr  # the CLI keeps to its ns
    bad = run_cli("feedback", "no-such-query", "--outcome", "success")
    assert bad.returncode == 1 and "unknown or has expired" in bad.stderr
    with pytest.raises(UnknownQuery):
        mem.feedback("no-such-query", outcome="success")

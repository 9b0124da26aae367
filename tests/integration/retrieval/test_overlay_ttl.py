"""Never-ended sessions (BQAR overlay TTL) on the real stack: a session idle longer than
``overlay_ttl_hours`` is merged by the same three-way merge — at the end_session of any session of
its namespace, and by ``kgmem expire-overlays`` — while an active session keeps its overlay."""

from __future__ import annotations

import json
import time

import pytest

FACTS = [
    "The release train leaves every second Tuesday at noon.",
    "Release notes are drafted in the shared release document.",
    "The cafeteria serves soup on Wednesdays.",
]


@pytest.fixture
def items(mem, ns):
    ids = [mem.add_knowledge(text, "fact", ns=ns)["id"] for text in FACTS]
    mem.wait_for_analysis(30)
    return ids


def judge(mem, ns, session, item, outcome, query="release train"):
    result = mem.search(query, ns=ns, k=10, session=session, kinds="knowledge")
    assert item in [h.id for h in result.hits]
    mem.feedback(result.query_id, used=[item], outcome=outcome)
    mem.retrieval.flush()  # the query log (and with it the session's last activity) is written behind


def usage(mem, ns, item, session=None, query="release train"):
    """The usage posterior a search (in ``session``) ranks ``item`` by."""
    hits = {h.id: h for h in mem.search(query, ns=ns, k=10, session=session, kinds="knowledge").hits}
    return hits[item].breakdown["posterior"]


def age(driver, ns, session, hours):
    """Make ``session`` look idle for ``hours`` (its last search / feedback that long ago)."""
    past = int(time.time() * 1000) - int(hours * 3_600_000)
    records, _, _ = driver.execute_query(
        "MATCH (st:KgmemSessionState {ns: $ns, session: $s}) SET st.last_ms = $t RETURN count(st) AS n",
        ns=ns,
        s=session,
        t=past,
    )
    assert records[0]["n"] == 1


def overlay_sessions(driver, ns):
    records, _, _ = driver.execute_query(
        "MATCH (o:KgmemOverlay {ns: $ns}) RETURN collect(DISTINCT o.session) AS s", ns=ns
    )
    return set(records[0]["s"])


def test_end_session_of_another_session_merges_an_idle_one(mem, ns, items, driver, counts):
    target = items[0]
    judge(mem, ns, "idle", target, "positive")
    judge(mem, ns, "active", target, "negative")
    judge(mem, ns, "ending", items[1], "success", query="release notes document")
    ttl = mem.settings.retrieval.overlay_ttl_hours
    age(driver, ns, "idle", ttl + 1)
    age(driver, ns, "active", ttl / 2)
    assert overlay_sessions(driver, ns) == {"idle", "active", "ending"}

    mem.end_session("ending", ns=ns)

    assert overlay_sessions(driver, ns) == {"active"}  # idle merged, active kept
    alpha, beta = counts(target)
    # prior 1/1 + idle's +1.0 + ending's "retrieved, not used" -0.1; active's -1.0 is still in its overlay
    assert alpha == pytest.approx(2.0) and beta == pytest.approx(1.1)
    assert usage(mem, ns, target) > 0.6
    assert usage(mem, ns, target, session="active") < usage(mem, ns, target)  # active still sees its negative


def test_expire_overlays_merges_like_end_session(mem, ns, items, driver, counts):
    target = items[0]
    judge(mem, ns, "old", target, "success")
    judge(mem, ns, "fresh", target, "success")
    age(driver, ns, "old", 10)
    assert mem.retrieval.expire_overlays(ns, ttl_hours=20) == []  # not idle long enough
    expired = mem.retrieval.expire_overlays(ns, ttl_hours=5)
    assert [(e.ns, e.session) for e in expired] == [(ns, "old")]
    merged = {round(m.merged.alpha, 6) for m in expired[0].merges}
    assert 1.8 in merged  # prior 1 + success 0.8 on the target
    assert counts(target)[0] == pytest.approx(1.8)
    assert overlay_sessions(driver, ns) == {"fresh"}
    records, _, _ = driver.execute_query(
        "MATCH (st:KgmemSessionState {ns: $ns}) RETURN collect(st.session) AS s", ns=ns
    )
    assert records[0]["s"] == ["fresh"]  # the expired session's state is gone too


def test_expire_overlays_cli(mem, ns, items, driver, settings, counts, cli):
    if settings.chroma.path is None:
        pytest.skip("needs embedded Chroma shared through a path")
    judge(mem, ns, "forgotten", items[1], "positive", query="release notes document")
    age(driver, ns, "forgotten", 48)
    out = cli("expire-overlays", "--ns", ns, "--ttl-hours", "24", "--json")
    assert out.exit_code == 0, out.output
    rows = json.loads(out.stdout.splitlines()[-1])
    assert [(r["ns"], r["session"]) for r in rows] == [(ns, "forgotten")] and rows[0]["items"] >= 1
    assert counts(items[1])[0] == pytest.approx(2.0)
    again = cli("expire-overlays", "--ns", ns, "--ttl-hours", "24")
    assert again.exit_code == 0 and "0 idle sessions merged" in again.stdout
    bad = cli("expire-overlays", "--ns", ns, "--ttl-hours", "-1")
    assert bad.exit_code != 0 and "ttl_hours" in bad.stderr

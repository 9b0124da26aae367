"""The learning write (tool results, fix outcomes of a resolve or a correction) straddling a session's
forget. A writer in another process opens its transaction — a new error of the session and a user's
fix of an error pattern seen only in it, both holding the canary — before the forget starts and
commits while it runs. Nothing of it may outlive the forget: either the forget waits for the commit
and erases what it wrote, or the write, reaching the session (or the pattern) after the forget marked
it, writes nothing of it."""

from __future__ import annotations

import subprocess

import pytest

from kgmem import KGMem
from kgmem.errors import ErrorNotFound
from kgmem.tombstones import session_node_id

from .conftest import canary, forget_while_held, held_writer, scan


@pytest.fixture
def fmem(fsettings, driver, embedder, graph):
    client = KGMem(fsettings, driver=driver, embedder=embedder)
    yield client
    client.close()


def _straddling_writer(settings, ns: str, session: str, secret: str, error_id: str, opened, commit) -> subprocess.Popen:
    """Another process: one ``learning/apply_events`` transaction, planned as the learning engine plans
    it, held open (it writes ``opened``) until ``commit`` appears. It holds a tool result of ``session``
    that ends the open failure ``error_id`` (an observed recovery: its fix names the call's new
    parameter, the canary) and a user's fix of the same pattern (a correction), holding the canary."""
    body = f"""
        from kgmem.config import LearningSettings
        from kgmem.ids import ns_key
        from kgmem.learning.confidence import ConfidenceRules
        from kgmem.learning.plan import fix_id, now_iso, open_failure_keys, plan_batch, prepare

        ns, session, secret, error_id = {ns!r}, {session!r}, {secret!r}, {error_id!r}
        events = [prepare("vault", {{"key": secret}}, None, session)]
        fix = f"unseal the vault with key {{secret}}"
        user_fix = {{"error_id": error_id, "tool": "vault", "pattern": f"sealed {{secret}}", "signature": "",
                     "keys": "", "category": "general", "template": "", "fix_id": fix_id(ns, fix),
                     "description": fix, "source": "user", "success": True, "at": now_iso(), "proves": False}}
        open_rows = {{}}
        for row in tx.run(cypher.load("learning/open_failures"), ns=ns, pairs=open_failure_keys(ns, events)).data():
            open_rows.setdefault((row["session_id"], row["tool"]), []).append(row)
        plan = plan_batch(ns, events, 500, open_rows)
        assert [o["error_id"] for o in plan.outcomes] == [error_id], plan.outcomes
        rows = {{"outcomes": [*plan.outcomes, user_fix], "closes": plan.closes, "recoveries": plan.recoveries}}
        sessions = sorted({{r["session_id"] for v in rows.values() for r in v if r.get("session_id")}})
        params = {{"ns": ns, "ns_key": ns_key(ns), "now": now_iso(), "sessions": sessions, "segment": None,
                   "expected": -1, "upto": -1, "marks": [], "judgements": [], "call": "straddle",
                   "errors": [], "retracts": [], **rows,
                   **ConfidenceRules.from_settings(LearningSettings()).cypher_params()}}
        written = list(tx.run(cypher.load("learning/apply_events"), params))
        """
    return held_writer(settings, body, opened, commit)


def _tombstoned(driver, ns: str, item: str) -> bool:
    records, _, _ = driver.execute_query(
        "MATCH (t:KgmemTombstone {ns: $ns, id: $id}) RETURN count(t) AS n", ns=ns, id=item
    )
    return records[0]["n"] > 0


def test_a_learning_write_straddling_the_forget_brings_nothing_back(fmem, fsettings, ns, driver, tmp_path):
    secret = canary()
    sealed = fmem.tool_result("vault", {"key": "old"}, error="VaultSealed: the vault is sealed", session="s1")
    fmem.tool_result("mail", {}, error="MailboxFull: no room left", session="s1")
    fmem.tool_result("mail", {}, error="MailboxFull: no room left", session="s2")
    fmem.turn(session="s1", role="user", text="open the vault", ref="1")
    fmem.flush()

    opened, commit = tmp_path / "opened", tmp_path / "commit"
    writer = _straddling_writer(fsettings, ns, "s1", secret, sealed.id, opened, commit)
    # The writer commits once the forget has planned and tombstoned the pattern — or, when the forget
    # waits for the writer's locks (it cannot get that far), after 10 s.
    forget_while_held(fmem, writer, opened, commit, "s1", lambda: _tombstoned(driver, ns, sealed.id), 10.0)

    after = scan(fmem, driver, ns, [secret])
    assert after == dict.fromkeys(after, 0), after
    records, _, _ = driver.execute_query(
        "MATCH (e:ErrorPattern {ns: $ns}) RETURN e.tool AS tool, e.forgetting AS mark", ns=ns
    )
    # the pattern another session saw too stays, without the forget's mark
    assert [(r["tool"], r["mark"]) for r in records] == [("mail", None)]
    records, _, _ = driver.execute_query("MATCH (f:Fix {ns: $ns}) RETURN count(f) AS n", ns=ns)
    assert records[0]["n"] == 0


def test_a_learning_write_reaching_a_marked_session_writes_nothing_of_it(fmem, ns, driver, graph):
    """The other order: the forget's mark commits first; tool results of the session, their observed
    recovery, and a user's fix (a correction's fix) of a pattern seen only in it write nothing."""
    secret = canary()
    only_s1 = fmem.tool_result("vault", {"key": "old"}, error="VaultSealed: the vault is sealed", session="s1")
    shared = fmem.tool_result("mail", {}, error="MailboxFull: no room left", session="s1")
    fmem.tool_result("mail", {}, error="MailboxFull: no room left", session="s2")
    fmem.flush()
    graph.write("forget/mark_session", ns=ns, session_id=session_node_id(ns, "s1"), forget="f-test")

    fmem.tool_result("vault", {"code": secret}, error=f"VaultError: code {secret} rejected", session="s1")
    fmem.tool_result("vault", {"key": secret}, session="s1")  # would be an observed recovery of only_s1
    with pytest.raises(ErrorNotFound):
        fmem.learning.resolve(ns, only_s1.id, f"unseal with key {secret}", source="user", recovery=False)
    fmem.flush()
    after = scan(fmem, driver, ns, [secret])
    assert after == dict.fromkeys(after, 0), after

    # a pattern another session also saw stays, so it takes the fix; another session's errors are stored
    outcome = fmem.learning.resolve(ns, shared.id, "empty the outbox", source="user", recovery=False)
    assert outcome.description == "empty the outbox"
    fresh = fmem.tool_result("vault", {"code": secret}, error=f"VaultError: code {secret} rejected", session="s2")
    fmem.flush()
    assert fresh.occurrences == 1
    assert scan(fmem, driver, ns, [secret])["neo4j nodes"] > 0

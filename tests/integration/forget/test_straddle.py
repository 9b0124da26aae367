"""A writer in another process whose transaction straddles the forget: it opens its transaction
(the turn store's write, new turns of the session being forgotten, holding the canary) before the
forget starts and commits while the forget runs. Its turns must not outlive the forget: either the
forget waits for the writer's commit and erases what it wrote, or the writer, committing after the
forget marked the session, writes nothing of it."""

from __future__ import annotations

import subprocess

import pytest

from kgmem import KGMem
from kgmem.analysis import ExtractedItem
from kgmem.tombstones import session_node_id

from .conftest import canary, forget_while_held, held_writer, scan


@pytest.fixture
def fmem(fsettings, driver, embedder, graph):
    client = KGMem(fsettings, driver=driver, embedder=embedder)
    yield client
    client.close()


def _straddling_writer(settings, ns: str, session: str, text: str, opened, commit) -> subprocess.Popen:
    """Another process: the turn store's write of one new turn, in a transaction it holds open (it
    writes ``opened``) until ``commit`` appears."""
    body = f"""
        from kgmem.conversation.store import Turn, message_id
        from kgmem.ids import node_id, ns_key

        ns, session, text = {ns!r}, {session!r}, {text!r}
        turn = Turn(session, "user", text, "straddle")
        row = {{"id": message_id(ns, turn), "session_id": node_id(ns, "session", session), "session": session,
               "role": "user", "text": text, "ref": "straddle", "ts": None}}
        params = {{"ns": ns, "ns_key": ns_key(ns), "now": "2026-01-01T00:00:00+00:00", "rows": [row], "links": []}}
        written = list(tx.run(cypher.load("conversation/record_turns"), params))
        """
    return held_writer(settings, body, opened, commit)


def test_a_writer_straddling_the_forget_brings_nothing_back(fmem, fsettings, ns, driver, tmp_path):
    secret = canary()
    for i in range(3):
        fmem.turn(session="s1", role="user", text=f"the vault code is {secret}, note {i}", ref=str(i))
    fmem.turn(session="s2", role="user", text="an unrelated turn", ref="1")
    fmem.flush()

    opened, commit = tmp_path / "opened", tmp_path / "commit"
    writer = _straddling_writer(fsettings, ns, "s1", f"late: the vault code is {secret}", opened, commit)
    # the forget runs (or waits for the writer's lock) for 2 s while the writer's transaction is open
    forget_while_held(fmem, writer, opened, commit, "s1", lambda: False, 2.0)

    after = scan(fmem, driver, ns, [secret])
    assert after == dict.fromkeys(after, 0), after
    assert len(fmem.turns.messages(ns, "s2")) == 1


def test_a_turn_or_knowledge_reaching_a_marked_session_writes_nothing(fmem, ns, graph):
    """The other order: the forget's mark commits first; a writer that reaches the session after it
    (its transaction takes the session's lock, then reads the mark) writes nothing of the session."""
    secret = canary()
    fmem.turn(session="s1", role="user", text="before the forget", ref="1")
    fmem.flush()
    graph.write("forget/mark_session", ns=ns, session_id=session_node_id(ns, "s1"), forget="f-test")

    fmem.turn(session="s1", role="user", text=f"after the mark: {secret}", ref="2")
    fmem.flush()
    assert [m["text"] for m in fmem.turns.messages(ns, "s1")] == ["before the forget"]
    fact = ExtractedItem(type="fact", content=f"The vault code is {secret}", confidence=0.8)
    fmem.analysis.store.apply(ns, "s1", [fact], "llm")
    assert fmem.analysis.store.list(ns) == []

    fmem.turn(session="s2", role="user", text=f"another session: {secret}", ref="1")  # unmarked: stored
    fmem.flush()
    assert len(fmem.turns.messages(ns, "s2")) == 1

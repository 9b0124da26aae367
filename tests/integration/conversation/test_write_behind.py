"""Turn write-behind through the client (``[analysis] write_behind``; kgmem/conversation/recorder.py
and writer.py) on the real stack: ids at once, stored in order before the session ends, searchable
without a wait, and handed to conversation analysis only once stored."""

from __future__ import annotations

import pytest

from kgmem.conversation import Turn, message_id
from kgmem.errors import ValidationError

SESSION = [
    ("user", "Hello, I have a question about the editor settings."),
    ("assistant", "Sure, go ahead."),
    ("user", "I prefer tabs over spaces."),
    ("assistant", "Tabs it is."),
    ("user", "My name is Dana."),
    ("assistant", "Thanks, Dana."),
]


@pytest.fixture
def wb_mem(settings, driver, embedder, graph, tmp_path):
    """A client with write-behind on and the offline extractor (no API key)."""
    from kgmem import KGMem

    s = settings.model_copy(
        update={
            "home": tmp_path / "home",
            "analysis": settings.analysis.model_copy(update={"write_behind": True}),
            "anthropic": settings.anthropic.model_copy(update={"api_key": None}),
        }
    )
    client = KGMem(s, driver=driver, embedder=embedder)
    yield client
    client.close()


def test_write_behind_turns_are_stored_in_order_then_analysed(wb_mem, driver, ns):
    mem = wb_mem
    with pytest.raises(ValidationError, match="text"):
        mem.turn(session="wb", role="user", text="   ")  # rejected on the caller's thread, nothing queued
    ids = [mem.turn(session="wb", role=role, text=text, ref=str(i)) for i, (role, text) in enumerate(SESSION)]
    assert ids[0] == message_id(mem.namespace, Turn("wb", "user", SESSION[0][1], "0"))
    mem.end_session("wb")  # stores the queued turns first, then ends the session
    assert mem.wait_for_analysis(60)
    records, _, _ = driver.execute_query(
        "MATCH (m:Message {ns: $ns})-[:PART_OF]->(s:Session {key: 'wb'}) "
        "RETURN m.id AS id, s.ended_at IS NOT NULL AS ended ORDER BY m.seq",
        ns=ns,
    )
    assert [r["id"] for r in records] == ids and all(r["ended"] for r in records)
    # Analysis (a listener of the turn path) saw every stored turn and the session end.
    assert {"The user prefers tabs over spaces.", "The user's name is Dana."} <= {i["content"] for i in mem.learnings()}
    assert mem.analysis_stats()["turns_written"] == len(SESSION)


def test_write_behind_turn_is_searchable_at_once(wb_mem):
    mem = wb_mem
    mem.turn(session="wb2", role="user", text="My sailing boat is called Albatross and it is moored in Kiel.")
    # no end_session, no wait: search itself stores what this client still has queued
    hits = mem.search("what is the name of my boat", k=3, kinds=["message"]).hits
    assert hits and "Albatross" in hits[0].text

"""The client's turn path (kgmem/conversation/recorder.py): listeners hear of stored turns and ended
sessions only; with Neo4j unreachable both are spooled (same message id) or, without a spool, raised.
A stand-in turn store and replayer record the calls (the real ones: tests/integration/conversation,
tests/reliability/test_backend_failures.py, tests/integration/client/test_both_clients.py)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from kgmem.conversation import Turn, message_id
from kgmem.conversation.recorder import TurnRecorder
from kgmem.conversation.store import Recorded
from kgmem.errors import GraphUnavailable, ValidationError
from kgmem.runner import Op, SyncIO, run
from kgmem.spool import SESSION_END, TURN


class Turns:
    """Stores turns in a list unless ``down``."""

    def __init__(self) -> None:
        self.io = SyncIO(None, None, None)
        self.down = False
        self.stored: list[tuple[str, str]] = []
        self.ended: list[str] = []

    def _check(self) -> None:
        if self.down:
            raise GraphUnavailable("Neo4j unreachable")

    def record_batch_op(self, ns: str, turns: list[Turn]) -> Op[Recorded]:
        self._check()
        self.stored.extend((ns, t.text) for t in turns)
        return Recorded(ids=[message_id(ns, t) for t in turns], created=len(turns), embedded=0)
        yield  # pragma: no cover - an operation

    def end_session_op(self, ns: str, session: str) -> Op[None]:
        self._check()
        self.ended.append(session)
        return None
        yield  # pragma: no cover - an operation

    def record(self, ns: str, turns: list[Turn]) -> list[str]:
        return run(self.record_batch_op(ns, turns), self.io).ids


class Replayer:
    """Records what would be spooled; nothing is pending."""

    def __init__(self) -> None:
        self.appliers: dict[str, Any] = {}
        self.spooled: list[tuple[str, str, list[dict[str, Any]]]] = []

    def register(self, kind: str, applier: Any, transactional: bool) -> None:
        self.appliers[kind] = applier

    def divert_op(self, ns: str, events: list[dict[str, Any]], kind: str, exc: BaseException) -> Op[None]:
        self.spooled.append((ns, kind, list(events)))
        return None
        yield  # pragma: no cover - an operation

    def replay_if_due_op(self) -> Op[None]:
        return None
        yield  # pragma: no cover - an operation


def _recorder(replayer: Replayer | None) -> tuple[TurnRecorder, Turns, list[str], Counter]:
    turns, heard, counts = Turns(), [], Counter()
    recorder = TurnRecorder(
        turns,
        lambda ns, name, n=1: counts.update({name: n}),
        replayer=replayer,  # type: ignore[arg-type]
        on_stored=lambda ns, t: heard.append(f"turn:{t.text}"),
        on_session_end=lambda ns, s: heard.append(f"end:{s}"),
    )
    return recorder, turns, heard, counts


def test_listeners_hear_of_what_was_stored_in_order() -> None:
    recorder, turns, heard, _ = _recorder(Replayer())
    mid = recorder.turn("ns", Turn("s", "user", "hello"))
    recorder.close_session("ns", "s")
    assert mid == message_id("ns", Turn("s", "user", "hello"))
    assert turns.stored == [("ns", "hello")] and turns.ended == ["s"]
    assert heard == ["turn:hello", "end:s"]


def test_unreachable_neo4j_spools_turns_and_session_ends_with_the_same_id() -> None:
    replayer = Replayer()
    recorder, turns, heard, counts = _recorder(replayer)
    turns.down = True
    mid = recorder.turn("ns", Turn("s", "user", "hello"))
    recorder.close_session("ns", "s")
    assert mid == message_id("ns", Turn("s", "user", "hello"))
    assert [(kind, events) for _, kind, events in replayer.spooled] == [
        (TURN, [{"session": "s", "role": "user", "text": "hello", "ref": None, "ts": None}]),
        (SESSION_END, [{"session": "s"}]),
    ]
    assert heard == [] and counts == {"turns_spooled": 1, "session_ends_spooled": 1}
    # The replay (its appliers are registered on the client's replayer) stores them and tells the listeners.
    turns.down = False
    for kind in (TURN, SESSION_END):
        [(ns, _, events)] = [s for s in replayer.spooled if s[1] == kind]
        assert run(replayer.appliers[kind](ns, [{**e, "ns": ns} for e in events], None), turns.io) is True
    assert turns.stored == [("ns", "hello")] and heard == ["turn:hello", "end:s"]


def test_without_a_spool_the_outage_is_raised_and_bad_input_never_reaches_the_store() -> None:
    recorder, turns, heard, _ = _recorder(None)
    with pytest.raises(ValidationError, match="text"):
        recorder.turn("ns", Turn("s", "user", "   "))
    turns.down = True
    with pytest.raises(GraphUnavailable):
        recorder.turn("ns", Turn("s", "user", "hello"))
    with pytest.raises(GraphUnavailable):
        recorder.close_session("ns", "s")
    assert turns.stored == [] and heard == []

"""The client's turn path: validate → store (now, or queued by write-behind) → tell listeners.

:class:`TurnRecorder` is what ``KGMem.turn`` and ``KGMem.end_session`` go through. It owns
everything that writes ``Message`` and ``Session`` nodes for a live client: the
:class:`~kgmem.conversation.TurnStore` write, opt-in write-behind
(:class:`~kgmem.conversation.writer.TurnWriter`), and — while Neo4j is unreachable — the
spool (turns and session ends are spooled in order and replayed by the client's
:class:`~kgmem.spool.SpoolReplayer`, same message ids).

Conversation analysis listens rather than owns: ``on_stored`` sees each turn once it is
stored, ``on_session_end`` each ended session, so ``kgmem.analysis`` depends on this
package and not the other way round.

The store-or-spool steps are operations (:mod:`kgmem.runner`): :meth:`TurnRecorder.turn` and
:meth:`~TurnRecorder.close_session` run them on the sync stores for ``KGMem``;
``AsyncKGMem`` runs :meth:`~TurnRecorder.record_op` and :meth:`~TurnRecorder.close_session_op`
on its async ones. Write-behind stores batches with the same operation
(:func:`~kgmem.conversation.writer.store_batch_op`): on a thread for ``KGMem``, on an asyncio
task for ``AsyncKGMem`` (``arun`` given: :meth:`~TurnRecorder.turn_async` and friends).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import asdict
from typing import Any

from kgmem.conversation.store import Turn, TurnStore, message_id, validate_turn
from kgmem.conversation.writer import AsyncTurnWriter, Batch, TurnWriter, store_batch_op
from kgmem.graph.store import UNREACHABLE
from kgmem.runner import Op, run
from kgmem.spool import SESSION_END, TURN, SpoolReplayer

log = logging.getLogger(__name__)

Count = Callable[[str, str, int], None]


def _ignore_turn(ns: str, turn: Turn) -> None:
    return None


def _ignore_session(ns: str, session: str) -> None:
    return None


class TurnRecorder:
    """Stores a client's turns and session ends.

    Args:
        turns: the turn store.
        count: adds to a counter of a namespace (``turns_written``, ``turns_failed``,
            ``turns_spooled``, ``session_ends_spooled``), e.g. ``AnalysisStats.count``.
        replayer: the client's spool replayer; ``None`` = raise when Neo4j is unreachable
            (``learning.strict``, or no spool).
        write_behind: queue turns and store them in batches on a thread (``[analysis] write_behind``).
        queue_size, batch_size: write-behind's queue bound and batch size.
        flush_timeout_s: how long :meth:`close_session`, :meth:`flush` and :meth:`close` wait for the queue.
        on_stored: called with each stored turn, in order.
        on_session_end: called with each session once it is marked ended.
        arun: the async client's runner (a coroutine function running an operation): write-behind
            then queues on an asyncio task (use the ``*_async`` methods); by default a thread.
    """

    def __init__(
        self,
        turns: TurnStore,
        count: Count,
        *,
        replayer: SpoolReplayer | None = None,
        write_behind: bool = False,
        queue_size: int = 10_000,
        batch_size: int = 64,
        flush_timeout_s: float = 30.0,
        on_stored: Callable[[str, Turn], None] = _ignore_turn,
        on_session_end: Callable[[str, str], None] = _ignore_session,
        arun: Callable[[Op[Any]], Awaitable[Any]] | None = None,
    ) -> None:
        self.turns = turns
        self.count = count
        self.replayer = replayer
        self.flush_timeout_s = flush_timeout_s
        self.on_stored = on_stored
        self.on_session_end = on_session_end
        if replayer is not None:
            replayer.register(TURN, self._replay_turns, transactional=False)
            replayer.register(SESSION_END, self._replay_session_ends, transactional=False)
        self.writer: TurnWriter | AsyncTurnWriter | None = None
        if write_behind and arun is None:
            self.writer = TurnWriter(
                lambda batch: run(self.store_batch_op(batch), self.turns.io),
                queue_size=queue_size,
                batch_size=batch_size,
            )
        elif write_behind and arun is not None:  # (arun is set here: spelt out for the type checker)
            self.writer = AsyncTurnWriter(
                lambda batch: arun(self.store_batch_op(batch)), queue_size=queue_size, batch_size=batch_size
            )

    def turn(self, ns: str, turn: Turn) -> str:
        """Store ``turn`` (now, or queued with write-behind); returns the message id.

        While Neo4j is unreachable the turn is spooled and replayed later (same id)."""
        clean = validate_turn(turn)  # bad input fails here, on the caller's thread, naming the field
        if isinstance(self.writer, TurnWriter):
            self.writer.submit(ns, clean)
            return message_id(ns, clean)
        return run(self.record_op(ns, clean), self.turns.io)

    async def turn_async(self, ns: str, turn: Turn, arun: Callable[[Op[Any]], Awaitable[Any]]) -> str:
        """:meth:`turn` for the async client: queued on the asyncio writer, or stored now with ``arun``."""
        clean = validate_turn(turn)
        if isinstance(self.writer, AsyncTurnWriter):
            await self.writer.submit(ns, clean)
            return message_id(ns, clean)
        return await arun(self.record_op(ns, clean))

    def store_batch_op(self, batch: Batch) -> Op[None]:
        """Store one write-behind batch (:func:`~kgmem.conversation.writer.store_batch_op`); a batch
        Neo4j did not take is spooled (with a spool)."""
        return (
            yield from store_batch_op(
                batch,
                self.turns.record_batch_op,
                self.on_stored,
                self.count,
                self._spool_turns if self.replayer is not None else None,
            )
        )

    def record_op(self, ns: str, turn: Turn) -> Op[str]:
        """Store one turn now (an operation): older spooled writes first, then the turn; spooled
        while Neo4j is unreachable (same id). ``on_stored`` hears of it once it is stored."""
        clean = validate_turn(turn)
        try:
            if self.replayer is not None:
                yield from self.replayer.replay_if_due_op()  # the session stays in order
            recorded = yield from self.turns.record_batch_op(ns, [clean])
        except UNREACHABLE as exc:
            if self.replayer is None:
                raise
            yield from self._spool(ns, TURN, [asdict(clean)], exc)
            return message_id(ns, clean)
        self.on_stored(ns, clean)
        return recorded.ids[0]

    def close_session(self, ns: str, session: str) -> None:
        """Store queued turns, then :meth:`close_session_op` on the sync stores."""
        self.flush()  # the session's turns must be stored before a listener reads them back
        run(self.close_session_op(ns, session), self.turns.io)

    def close_session_op(self, ns: str, session: str) -> Op[None]:
        """Mark the session ended, then tell ``on_session_end``; spooled (after the session's
        spooled turns, so the replay ends it in order) while Neo4j is unreachable."""
        try:
            yield from self.turns.end_session_op(ns, session)
        except UNREACHABLE as exc:
            if self.replayer is None:
                raise
            yield from self._spool(ns, SESSION_END, [{"session": session}], exc)
            return
        self.on_session_end(ns, session)

    def flush(self) -> bool:
        """Wait up to ``flush_timeout_s`` until every queued turn is stored (no-op without
        write-behind); False on timeout."""
        return self.wait(self.flush_timeout_s)

    def wait(self, timeout: float | None) -> bool:
        """Wait until every queued turn is stored (``None``: as long as it takes); False on timeout."""
        return self.writer.flush(timeout) if isinstance(self.writer, TurnWriter) else True

    def close(self) -> None:
        """Store what write-behind still holds, then stop its thread."""
        if isinstance(self.writer, TurnWriter):
            self.writer.close(self.flush_timeout_s)

    async def wait_async(self, timeout: float | None) -> bool:
        """:meth:`wait` for the asyncio writer."""
        return await self.writer.flush(timeout) if isinstance(self.writer, AsyncTurnWriter) else True

    async def flush_async(self) -> bool:
        """:meth:`flush` for the asyncio writer."""
        return await self.wait_async(self.flush_timeout_s)

    async def aclose(self) -> None:
        """:meth:`close` for the asyncio writer."""
        if isinstance(self.writer, AsyncTurnWriter):
            await self.writer.close(self.flush_timeout_s)

    # -- spool (Neo4j unreachable) -------------------------------------------------------
    def _spool_turns(self, ns: str, turns: list[Turn], exc: BaseException) -> Op[None]:
        """A write-behind batch Neo4j did not take."""
        yield from self._spool(ns, TURN, [asdict(t) for t in turns], exc)

    def _spool(self, ns: str, kind: str, events: list[dict[str, Any]], exc: BaseException) -> Op[None]:
        yield from self.replayer.divert_op(ns, events, kind, exc)  # type: ignore[union-attr]
        self.count(ns, f"{kind}s_spooled", len(events))

    def _replay_turns(self, ns: str, events: list[dict[str, Any]], _cursor: Any) -> Op[bool]:
        turns = [Turn(e["session"], e["role"], e["text"], e.get("ref"), e.get("ts")) for e in events]
        yield from self.turns.record_batch_op(ns, turns)  # idempotent: deterministic message ids
        for t in turns:
            self.on_stored(ns, t)
        return True

    def _replay_session_ends(self, ns: str, events: list[dict[str, Any]], _cursor: Any) -> Op[bool]:
        for e in events:  # idempotent: ending a session twice only moves its ended_at
            yield from self.turns.end_session_op(ns, e["session"])
            self.on_session_end(ns, e["session"])
        return True

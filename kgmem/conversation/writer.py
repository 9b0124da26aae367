"""Write-behind for conversation turns (opt-in: ``[analysis] write_behind = true``).

By default ``KGMem.turn()`` stores the turn before it returns (a Neo4j transaction, an
embedding, a Chroma upsert: tens of milliseconds). With write-behind, ``turn()`` validates
the turn, computes its deterministic message id and returns at once; one thread stores the
queued turns in batches through ``TurnStore.record`` (one transaction and one embedding
batch per batch) and only then hands them on (``on_stored``: the analysis buffer).

The price: a turn is searchable only once its batch is written, and turns still queued when
the process dies are lost. ``flush()`` (called by ``end_session`` and ``close``) waits for the
queue. A full queue blocks the caller (back-pressure) rather than dropping turns — turns are
data, analysis is best effort. A batch that fails to store is logged at ERROR and counted
(``turns_failed``).

Storing one batch is an operation (:func:`store_batch_op`, :mod:`kgmem.runner`) shared by the two
writers: :class:`TurnWriter` (a thread, ``KGMem``) and :class:`AsyncTurnWriter` (an asyncio task on
the client's loop, ``AsyncKGMem``).
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
from collections.abc import Awaitable, Callable
from typing import Any

from kgmem.conversation.store import Turn
from kgmem.graph.store import UNREACHABLE
from kgmem.queueing import join_async, join_with_timeout, stop_task
from kgmem.runner import Op

log = logging.getLogger(__name__)

_STOP = object()


Batch = list[tuple[str, Turn]]
Count = Callable[[str, str, int], None]


def store_batch_op(
    batch: Batch,
    record_op: Callable[[str, list[Turn]], Op[Any]],
    on_stored: Callable[[str, Turn], None],
    count: Count,
    spool_op: Callable[[str, list[Turn], BaseException], Op[None]] | None = None,
) -> Op[None]:
    """Store one write-behind batch (an operation): per namespace one ``record_op`` (e.g.
    ``TurnStore.record_batch_op``), then ``on_stored`` for each turn, in order. A namespace
    Neo4j did not take goes to ``spool_op`` (None: counted ``turns_failed`` and logged); any
    other failure is counted and logged — the caller is gone, the writer keeps going."""
    by_ns: dict[str, list[Turn]] = {}
    for ns, turn in batch:
        by_ns.setdefault(ns, []).append(turn)
    for ns, turns in by_ns.items():
        try:
            yield from record_op(ns, turns)
        except UNREACHABLE as exc:
            if spool_op is not None:
                try:
                    yield from spool_op(ns, turns, exc)
                    continue
                except Exception as spool_error:  # noqa: BLE001 - counted as failed below
                    log.error("write-behind: spooling %d turn(s) failed: %s", len(turns), spool_error)
            count(ns, "turns_failed", len(turns))
            log.error("write-behind: %d turn(s) of %s not stored: %s", len(turns), ns, exc)
            continue
        except Exception as exc:  # noqa: BLE001 - the caller is gone; report loudly, keep running
            count(ns, "turns_failed", len(turns))
            log.error("write-behind: %d turn(s) of %s not stored: %s", len(turns), ns, exc)
            continue
        count(ns, "turns_written", len(turns))
        for turn in turns:
            on_stored(ns, turn)


class TurnWriter:
    """Stores queued turns in batches on its own thread.

    Args:
        store: stores one batch (``(ns, turn)`` pairs, in order) and never raises — e.g.
            :func:`store_batch_op` run with :func:`kgmem.runner.run`.
        queue_size: turns that may wait; beyond, ``submit`` blocks.
        batch_size: most turns per ``store`` call.
    """

    def __init__(self, store: Callable[[Batch], Any], queue_size: int = 10_000, batch_size: int = 64) -> None:
        self.store = store
        self.batch_size = batch_size
        self._queue: queue.Queue[Any] = queue.Queue(maxsize=queue_size)
        self._lock = threading.Lock()
        self._worker: threading.Thread | None = None
        self._closed = False

    def submit(self, ns: str, turn: Turn) -> None:
        """Queue one (already validated) turn; blocks while the queue is full."""
        if self._closed:
            raise RuntimeError("TurnWriter is closed")
        self._ensure_worker()
        self._queue.put((ns, turn))

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every queued turn is stored (and handed to analysis); False on timeout."""
        return join_with_timeout(self._queue, timeout)

    def close(self, timeout: float | None = None) -> bool:
        """Store what is queued, then stop the thread."""
        if self._closed:
            return True
        self._closed = True
        done = self.flush(timeout)
        if self._worker is not None:
            self._queue.put(_STOP)
            self._worker.join(timeout=5.0)
        if not done:
            log.error("write-behind: %d turn(s) not stored before close", self._queue.unfinished_tasks)
        return done

    def _ensure_worker(self) -> None:
        if self._worker is None:
            with self._lock:
                if self._worker is None:
                    self._worker = threading.Thread(target=self._run, name="kgmem-turns", daemon=True)
                    self._worker.start()

    def _run(self) -> None:
        while True:
            first = self._queue.get()
            if first is _STOP:
                self._queue.task_done()
                return
            batch = [first]
            while len(batch) < self.batch_size:  # take what has piled up meanwhile: natural batching
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                if item is _STOP:
                    self._queue.put(_STOP)  # handle after this batch
                    self._queue.task_done()
                    break
                batch.append(item)
            try:
                self.store(batch)
            except Exception as exc:  # noqa: BLE001 - the caller is gone; the thread keeps going
                log.error("write-behind: a batch of %d turn(s) failed: %s", len(batch), exc)
            finally:
                for _ in batch:
                    self._queue.task_done()


class AsyncTurnWriter:
    """:class:`TurnWriter` on the running event loop: an :class:`asyncio.Queue` and one task.

    Args:
        store: a coroutine function storing one batch (e.g. :func:`store_batch_op` run with the
            async client's runner); it should not raise (failures are logged).
        queue_size: turns that may wait; beyond, ``submit`` waits (back-pressure).
        batch_size: most turns per ``store`` call.
    """

    def __init__(
        self, store: Callable[[Batch], Awaitable[Any]], queue_size: int = 10_000, batch_size: int = 64
    ) -> None:
        self.store = store
        self.batch_size = batch_size
        self._queue: asyncio.Queue[tuple[str, Turn]] = asyncio.Queue(maxsize=queue_size)
        self._worker: asyncio.Task[None] | None = None
        self._closed = False

    async def submit(self, ns: str, turn: Turn) -> None:
        """Queue one (already validated) turn; waits while the queue is full."""
        if self._closed:
            raise RuntimeError("AsyncTurnWriter is closed")
        if self._worker is None:
            self._worker = asyncio.get_running_loop().create_task(self._run(), name="kgmem-turns")
        await self._queue.put((ns, turn))

    async def flush(self, timeout: float | None = None) -> bool:
        """Wait until every queued turn is stored (and handed to analysis); False on timeout."""
        return await join_async(self._queue, timeout)

    async def close(self, timeout: float | None = None) -> bool:
        """Store what is queued, then stop the task."""
        if self._closed:
            return True
        self._closed = True
        done = await self.flush(timeout)
        await stop_task(self._worker)
        if not done:
            log.error("write-behind: %d turn(s) not stored before close", self._queue.qsize())
        return done

    async def _run(self) -> None:
        while True:
            batch = [await self._queue.get()]
            while len(batch) < self.batch_size:  # take what has piled up meanwhile: natural batching
                try:
                    batch.append(self._queue.get_nowait())
                except asyncio.QueueEmpty:
                    break
            try:
                await self.store(batch)
            except Exception as exc:  # noqa: BLE001 - the caller is gone; the task keeps going
                log.error("write-behind: a batch of %d turn(s) failed: %s", len(batch), exc)
            finally:
                for _ in batch:
                    self._queue.task_done()

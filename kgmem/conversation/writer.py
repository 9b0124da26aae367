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
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from typing import Any

from kgmem.conversation.store import Turn
from kgmem.graph.store import UNREACHABLE
from kgmem.queueing import join_with_timeout

log = logging.getLogger(__name__)

_STOP = object()


class TurnWriter:
    """Stores queued turns in batches on its own thread.

    Args:
        record: stores turns of one namespace in order (``TurnStore.record``).
        on_stored: called for each stored turn, in order (feeds the analysis buffer).
        count: adds to a counter of a namespace (``turns_written``, ``turns_failed``), e.g.
            ``AnalysisStats.count``.
        queue_size: turns that may wait; beyond, ``submit`` blocks.
        batch_size: most turns per ``record`` call.
    """

    def __init__(
        self,
        record: Callable[[str, list[Turn]], Any],
        on_stored: Callable[[str, Turn], None],
        count: Callable[[str, str, int], None],
        queue_size: int = 10_000,
        batch_size: int = 64,
        on_unreachable: Callable[[str, list[Turn], BaseException], None] | None = None,
    ) -> None:
        self.record = record
        self.on_unreachable = on_unreachable  # spools a batch Neo4j did not take (None: count it failed)
        self.on_stored = on_stored
        self.count = count
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
                self._write(batch)
            finally:
                for _ in batch:
                    self._queue.task_done()

    def _write(self, batch: list[tuple[str, Turn]]) -> None:
        by_ns: dict[str, list[Turn]] = {}
        for ns, turn in batch:
            by_ns.setdefault(ns, []).append(turn)
        for ns, turns in by_ns.items():
            try:
                self.record(ns, turns)
            except UNREACHABLE as exc:
                if self._spool(ns, turns, exc):
                    continue
                self.count(ns, "turns_failed", len(turns))
                log.error("write-behind: %d turn(s) of %s not stored: %s", len(turns), ns, exc)
                continue
            except Exception as exc:  # noqa: BLE001 - the caller is gone; report loudly, keep running
                self.count(ns, "turns_failed", len(turns))
                log.error("write-behind: %d turn(s) of %s not stored: %s", len(turns), ns, exc)
                continue
            self.count(ns, "turns_written", len(turns))
            for turn in turns:
                self.on_stored(ns, turn)

    def _spool(self, ns: str, turns: list[Turn], exc: BaseException) -> bool:
        if self.on_unreachable is None:
            return False
        try:
            self.on_unreachable(ns, turns, exc)
        except Exception as spool_error:  # noqa: BLE001 - logged by the caller's counters below
            log.error("write-behind: spooling %d turn(s) failed: %s", len(turns), spool_error)
            return False
        return True

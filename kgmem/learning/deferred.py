"""Deferred repeats: write-behind for occurrences of error patterns already in the graph.

A repeat of a known, indexed pattern changes nothing but counters (``occurrences``, the
``IN_SESSION`` count and open-failure state), yet one ``learning/apply_events`` transaction
costs ~10 ms on a loaded machine, most of it the commit. So :class:`LearningEngine
<kgmem.learning.engine.LearningEngine>` answers such a repeat from one *read*
(``learning/known_fixes``) and appends the event — written, flushed and fsync'ed before
``tool_result`` returns — to a deferred spool segment (``learning-deferred-<pid>-<rand>.jsonl``,
same directory and format as the outage spool). A flush applies the buffered lines with the
spool's replay semantics: one ``apply_events`` per namespace run whose segment cursor moves in
the same transaction, so each line is counted exactly once whoever applies it — this process
at its flush, or after a crash the replayer of any later process.

This module holds the pure parts and the segment bookkeeping; the engine owns the I/O:

- :class:`KnownPatterns`: the bounded memo of (namespace, pattern id) known to be in the graph
  with their vector written — only those are deferred;
- :func:`flush_due` / :func:`flush_wait`: when the timer flushes;
- :class:`DeferredSegment`: the open segment, the lines not yet applied, counts per pattern;
- :class:`Flusher`: the background thread that calls the engine's flush when it is due.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from kgmem.spool import LEARNING, Spool

log = logging.getLogger(__name__)

ROTATE_LINES = 10_000  # a fully applied deferred segment this long is deleted and a new one begun
IDLE_ROTATE_S = 5.0  # ... and so is one that has had nothing new for this long


class KnownPatterns:
    """LRU set of (namespace, error pattern id) known to be in the graph and indexed."""

    def __init__(self, size: int = 100_000) -> None:
        if size < 1:
            raise ValueError("size must be positive")
        self.size = size
        self._ids: OrderedDict[tuple[str, str], None] = OrderedDict()

    def add(self, ns: str, ids: Iterable[str]) -> None:
        for id_ in ids:
            key = (ns, id_)
            self._ids[key] = None
            self._ids.move_to_end(key)
        while len(self._ids) > self.size:
            self._ids.popitem(last=False)

    def discard(self, ns: str, id_: str) -> None:
        self._ids.pop((ns, id_), None)

    def __contains__(self, key: object) -> bool:
        if key in self._ids:
            self._ids.move_to_end(key)  # type: ignore[arg-type]
            return True
        return False

    def __len__(self) -> int:
        return len(self._ids)


def indexed_ids(rows: Iterable[Mapping[str, Any]]) -> list[str]:
    """Ids of ``apply_events`` / ``known_fixes`` error rows whose pattern has its vector (deferrable)."""
    return [r["id"] for r in rows if not r.get("vector_pending")]


def flush_due(now: float, first_at: float | None, buffered: int, flush_s: float, max_events: int) -> bool:
    """Whether buffered occurrences must be written now: ``flush_s`` after the first, or at ``max_events``."""
    return buffered > 0 and first_at is not None and (buffered >= max_events or now - first_at >= flush_s)


def flush_wait(now: float, first_at: float | None, buffered: int, flush_s: float) -> float | None:
    """Seconds the flusher may sleep before the next flush is due (None: nothing buffered)."""
    if buffered == 0 or first_at is None:
        return None
    return max(0.0, first_at + flush_s - now)


class DeferredSegment:
    """The deferred segment of one engine: its spool file, the lines not yet applied, the cursor.

    ``lock`` (re-entrant) is held by whoever appends or applies, so the flusher thread and the
    caller never write at the same time and a pattern's count is never read half-applied.
    """

    def __init__(self, directory: Path) -> None:
        self.spool = Spool(directory, outage=False)
        self.lock = threading.RLock()
        self.events: list[dict[str, Any]] = []  # appended, not yet applied (seq order)
        self.pending: Counter[tuple[str, str]] = Counter()  # (ns, error id) -> occurrences not yet applied
        self.cursor = -1  # last seq applied in the open segment (its graph cursor, which only we move)
        self.first_at: float | None = None  # monotonic time of the oldest unapplied line
        self.last_at = 0.0  # monotonic time of the last append

    def append(self, ns: str, event: dict[str, Any], error_id: str) -> int:
        """Append one prepared error event durably; returns this pattern's unapplied count."""
        with self.lock:
            self.spool.append([{**event, "ns": ns, "deferred": True, "error_id": error_id}], kind=LEARNING)
            seq = self.spool.written - 1
            self.events.append({**event, "ns": ns, "kind": LEARNING, "seq": seq, "error_id": error_id})
            self.pending[(ns, error_id)] += 1
            now = time.monotonic()
            if self.first_at is None:
                self.first_at = now
            self.last_at = now
            return self.pending[(ns, error_id)]

    @property
    def segment(self) -> str | None:
        """The open segment's file name: its cursor's key in the graph."""
        path = self.spool.path
        return path.name if path is not None else None

    def applied(self, upto: int) -> None:
        """Lines up to ``upto`` are in the graph (the cursor moved there)."""
        with self.lock:
            self.cursor = max(self.cursor, upto)
            self.spool.applied = self.cursor + 1
            keep = []
            for e in self.events:
                if int(e["seq"]) <= self.cursor:
                    key = (e["ns"], e["error_id"])
                    self.pending[key] -= 1
                    if self.pending[key] <= 0:
                        del self.pending[key]
                else:
                    keep.append(e)
            self.events = keep
            self.first_at = time.monotonic() if keep else None

    def rotate_if_done(self, now: float, force: bool = False) -> bool:
        """Delete the open segment when every line is applied and it is long, idle, or ``force``."""
        with self.lock:
            if self.events or self.spool.path is None:
                return False
            if force or self.spool.written >= ROTATE_LINES or now - self.last_at >= IDLE_ROTATE_S:
                self.spool.rotate(delete=True)
                self.cursor = -1
                return True
            return False

    def hand_over(self) -> int:
        """Close the segment with lines still unapplied, for the spool's replayer (Neo4j is
        unreachable, or the flush failed): the file and its graph cursor say what is left.
        Returns how many lines were handed over."""
        with self.lock:
            n = len(self.events)
            if self.spool.path is not None:
                self.spool.rotate(delete=not self.events)
            self.events, self.pending, self.cursor, self.first_at = [], Counter(), -1, None
            return n

    def unapplied(self, ns: str, error_id: str) -> int:
        return self.pending.get((ns, error_id), 0)


class Flusher:
    """Background thread: calls ``flush`` when :func:`flush_due` says so, and ``idle`` between flushes.

    ``flush`` and ``idle`` must not raise (the engine logs and hands over on failure).
    """

    def __init__(
        self,
        segment: DeferredSegment,
        flush: Callable[[], None],
        idle: Callable[[], None],
        flush_s: float,
        max_events: int,
    ) -> None:
        self.segment = segment
        self.flush_s = flush_s
        self.max_events = max_events
        self._flush = flush
        self._idle = idle
        self._wake = threading.Condition()
        self._stop = False
        self._thread = threading.Thread(target=self._loop, name="kgmem-deferred-flush", daemon=True)
        self._thread.start()

    def notify(self) -> None:
        """A line was appended: re-check the deadline (and the event count)."""
        with self._wake:
            self._wake.notify()

    def stop(self) -> None:
        with self._wake:
            self._stop = True
            self._wake.notify()
        self._thread.join(timeout=30)

    def _loop(self) -> None:
        # flush/idle run outside ``_wake``: they take the segment lock, which an appender holds
        # while it calls notify() — holding both here could deadlock.
        while True:
            with self._wake:
                if self._stop:
                    return
                seg = self.segment
                due = flush_due(time.monotonic(), seg.first_at, len(seg.events), self.flush_s, self.max_events)
                if not due:
                    wait = flush_wait(time.monotonic(), seg.first_at, len(seg.events), self.flush_s)
                    # Nothing buffered: wake up now and then to delete an idle, fully applied segment.
                    self._wake.wait(IDLE_ROTATE_S if wait is None else wait)
                    if self._stop:
                        return
                    due = flush_due(time.monotonic(), seg.first_at, len(seg.events), self.flush_s, self.max_events)
            if due:
                self._flush()
            elif not self.segment.events:
                self._idle()

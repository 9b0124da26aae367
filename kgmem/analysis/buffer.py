"""``AnalysisBuffer``: turns collect per session until a window is worth analysing.

``add`` runs on the caller's thread and only counts and appends (microseconds): when a
session has gathered ``turn_threshold`` turns (5) or an estimated ``token_threshold``
tokens (2000) since its last analysis, its window becomes a job on a bounded queue.
One worker thread (started on first use) runs the jobs, so the model call never blocks
the agent. When the queue is full the job is dropped — counted, logged at WARNING, and
visible in ``kgmem learning status``; the turns themselves are already stored as
``Message`` nodes, only their analysis is lost. ``flush`` queues a session's partial
window (``end_session``), ``close`` flushes every session and waits for the worker.

:class:`AsyncAnalysisBuffer` is the same on an event loop (``AsyncKGMem``): an
:class:`asyncio.Queue` and one task instead of the thread; the windows (:class:`Windows`)
are shared code.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from kgmem.analysis.events import AnalysisStats
from kgmem.config import AnalysisSettings
from kgmem.queueing import join_async, join_with_timeout, stop_task

log = logging.getLogger(__name__)

CHARS_PER_TOKEN = 4  # rough estimate for English text; the threshold is a trigger, not a budget


def estimate_tokens(text: str) -> int:
    """Cheap token estimate (≈ 4 characters per token), at least 1 per non-empty text."""
    return max(1, -(-len(text) // CHARS_PER_TOKEN)) if text else 0


@dataclass
class Job:
    """One unit of analysis work: a window of turns, or a whole ended session."""

    kind: str  # "window" | "session"
    ns: str
    session: str
    messages: list[dict[str, Any]] = field(default_factory=list)
    #: when its first turn arrived (epoch ms): a forget of the session after it voids the job's knowledge
    since_ms: int = field(default_factory=lambda: int(time.time() * 1000))


@dataclass
class _Window:
    messages: list[dict[str, Any]] = field(default_factory=list)
    tokens: int = 0
    since_ms: int = field(default_factory=lambda: int(time.time() * 1000))


_STOP = object()


class Windows:
    """Per-session windows of turns not analysed yet (thread-safe): which become a :class:`Job` when."""

    def __init__(self, settings: AnalysisSettings) -> None:
        self.settings = settings
        self._windows: dict[tuple[str, str], _Window] = {}
        self._lock = threading.Lock()

    def add(self, ns: str, session: str, role: str, text: str, ts: str | None = None) -> Job | None:
        """Count one turn; the session's window as a job when a threshold is reached. ``ts``: when the
        turn was said (its knowledge is valid from then; None = when it is analysed)."""
        with self._lock:
            window = self._windows.setdefault((ns, session), _Window())
            window.messages.append(
                {"role": role, "text": text} if ts is None else {"role": role, "text": text, "ts": ts}
            )
            window.tokens += estimate_tokens(text)
            due = len(window.messages) >= self.settings.turn_threshold or window.tokens >= self.settings.token_threshold
            if not due:
                return None
            del self._windows[(ns, session)]
        return Job("window", ns, session, window.messages, window.since_ms)

    def take(self, ns: str, session: str) -> Job | None:
        """What ``session`` has gathered since its last analysis, as a job (None if nothing)."""
        with self._lock:
            window = self._windows.pop((ns, session), None)
        if window is None or not window.messages:
            return None
        return Job("window", ns, session, window.messages, window.since_ms)

    def take_all(self) -> list[Job]:
        """Every partial window, as jobs (at close)."""
        with self._lock:
            windows, self._windows = self._windows, {}
        return [
            Job("window", ns, session, w.messages, w.since_ms) for (ns, session), w in windows.items() if w.messages
        ]

    def drop(self, ns: str, session: str | None = None, mentions: str | None = None) -> int:
        """Discard the partial windows of ``session`` (every session of ``ns`` when None) — with
        ``mentions`` (lower-cased) only those of which a turn holds it — without analysing them (a
        forget); returns how many turns they held."""
        with self._lock:
            keys = [
                k
                for k, w in self._windows.items()
                if k[0] == ns
                and (session is None or k[1] == session)
                and (mentions is None or any(mentions in str(m.get("text") or "").lower() for m in w.messages))
            ]
            return sum(len(self._windows.pop(k).messages) for k in keys)

    def pending(self) -> dict[str, int]:
        """The number of sessions with a partial window and their turns."""
        with self._lock:
            return {
                "sessions_pending": len(self._windows),
                "turns_pending": sum(len(w.messages) for w in self._windows.values()),
            }


class _Front:
    """What both buffers do on the caller's side: windows in, jobs submitted (the worker is theirs)."""

    _queue: Any

    def __init__(self, settings: AnalysisSettings, stats: AnalysisStats) -> None:
        self.settings = settings
        self.stats = stats
        self.windows = Windows(settings)
        self._closed = False

    def _ensure_worker(self) -> None:  # pragma: no cover - each buffer has its own
        raise NotImplementedError

    def submit(self, job: Job) -> bool:
        """Put ``job`` on the queue without blocking; a full queue (or a closed buffer) drops it."""
        if self._closed:
            _drop(self.stats, self.settings, job, "buffer closed")
            return False
        self._ensure_worker()
        try:
            self._queue.put_nowait(job)
        except (queue.Full, asyncio.QueueFull):
            _drop(self.stats, self.settings, job, "queue full")
            return False
        return True

    def add(self, ns: str, session: str, role: str, text: str, ts: str | None = None) -> bool:
        """Count one turn; queue the session's window when a threshold is reached. True if queued."""
        job = self.windows.add(ns, session, role, text, ts)
        return job is not None and self.submit(job)

    def flush(self, ns: str, session: str) -> bool:
        """Queue what ``session`` has gathered since its last analysis (if anything)."""
        job = self.windows.take(ns, session)
        return job is not None and self.submit(job)

    def pending(self) -> dict[str, int]:
        """Queue depth and the number of sessions with a partial window."""
        return {"queued": self._queue.qsize(), **self.windows.pending()}


class AnalysisBuffer(_Front):
    """Per-session windows + a bounded queue + one worker thread.

    Args:
        handler: runs one :class:`Job` on the worker thread (exceptions are logged and counted).
        settings: thresholds and queue size.
        stats: where drops and failures are counted.
    """

    def __init__(self, handler: Callable[[Job], Any], settings: AnalysisSettings, stats: AnalysisStats) -> None:
        super().__init__(settings, stats)
        self.handler = handler
        self._queue: queue.Queue[Any] = queue.Queue(maxsize=settings.queue_size)
        self._lock = threading.Lock()
        self._worker: threading.Thread | None = None

    # -- caller's thread ----------------------------------------------------------------
    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until every queued job has run; False if ``timeout`` passed first."""
        return join_with_timeout(self._queue, timeout)

    def close(self, timeout: float | None = None) -> bool:
        """Flush every partial window, let the worker finish the queue, stop it. True if it finished."""
        if self._closed:
            return True
        for job in self.windows.take_all():
            self.submit(job)
        self._closed = True
        timeout = self.settings.flush_timeout_s if timeout is None else timeout
        finished = self.wait_idle(timeout)
        if not finished:
            log.warning(
                "analysis queue not drained within %.1fs; %d job(s) abandoned", timeout, self._queue.unfinished_tasks
            )
        worker = self._worker
        if worker is not None:
            try:
                self._queue.put(_STOP, timeout=1.0)
            except queue.Full:
                pass  # daemon thread: it ends with the process
            worker.join(timeout=1.0 if not finished else max(1.0, timeout))
        return finished

    # -- worker thread --------------------------------------------------------------------
    def _ensure_worker(self) -> None:
        if self._worker is not None:
            return
        with self._lock:
            if self._worker is None:
                self._worker = threading.Thread(target=self._run, name="kgmem-analysis", daemon=True)
                self._worker.start()

    def _run(self) -> None:
        while True:
            job = self._queue.get()
            try:
                if job is _STOP:
                    return
                self.handler(job)
            except Exception as exc:  # noqa: BLE001 - one failed analysis must not stop the worker
                _failed(self.stats, job, exc)
            finally:
                self._queue.task_done()


class AsyncAnalysisBuffer(_Front):
    """:class:`AnalysisBuffer` on the running event loop: the same windows, a bounded
    :class:`asyncio.Queue` and one task (started on first use) that awaits ``handler`` per job.

    ``add``, ``flush`` and ``submit`` are called on the loop (from the turn path's operations)."""

    def __init__(
        self, handler: Callable[[Job], Awaitable[Any]], settings: AnalysisSettings, stats: AnalysisStats
    ) -> None:
        super().__init__(settings, stats)
        self.handler = handler
        self._queue: asyncio.Queue[Job] = asyncio.Queue(maxsize=settings.queue_size)
        self._worker: asyncio.Task[None] | None = None

    def _ensure_worker(self) -> None:
        if self._worker is None:
            self._worker = asyncio.get_running_loop().create_task(self._run(), name="kgmem-analysis")

    async def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait until every queued job has run; False if ``timeout`` passed first."""
        return await join_async(self._queue, timeout)

    async def close(self, timeout: float | None = None) -> bool:
        """Flush every partial window, let the task finish the queue, stop it. True if it finished."""
        if self._closed:
            return True
        for job in self.windows.take_all():
            self.submit(job)
        self._closed = True
        timeout = self.settings.flush_timeout_s if timeout is None else timeout
        finished = await self.wait_idle(timeout)
        if not finished:
            log.warning("analysis queue not drained within %.1fs; %d job(s) abandoned", timeout, self._queue.qsize())
        await stop_task(self._worker)
        return finished

    async def _run(self) -> None:
        while True:
            job = await self._queue.get()
            try:
                await self.handler(job)
            except Exception as exc:  # noqa: BLE001 - one failed analysis must not stop the worker
                _failed(self.stats, job, exc)
            finally:
                self._queue.task_done()


def _failed(stats: AnalysisStats, job: Job, exc: BaseException) -> None:
    stats.count(job.ns, "analysis_failed")
    log.exception("analysis of %s/%s failed: %s", job.ns, job.session, exc)


def _drop(stats: AnalysisStats, settings: AnalysisSettings, job: Job, why: str) -> None:
    stats.emit(
        "dropped",
        job.ns,
        level=logging.WARNING,
        session=job.session,
        kind=job.kind,
        turns=len(job.messages),
        reason=why,
        queue_size=settings.queue_size,
    )

"""Append-only spool for writes that could not reach Neo4j: learning events (tool results),
conversation turns and manual knowledge — one spool, replayed in order, each event once.

Layout under ``settings.spool_dir`` (``$KGMEM_HOME/spool``)::

    learning-<pid>-<random>.jsonl   one segment per writer; one JSON event per line,
                                    ``seq`` = line number (0-based), ``kind`` = what it is
                                    (``learning`` when absent: segments of older versions)
    learning-stats.json             events spooled / replayed / dropped / quarantined, all processes
    quarantine.jsonl                lines no replay can apply (see below), kept for inspection

A writer holds a shared ``flock`` on its open segment; a replayer takes an exclusive
non-blocking lock, so it never replays a segment that is still being written. Lines
are flushed and fsync'ed before ``append`` returns: once ``tool_result`` has returned,
the event survives a crash. Exactly-once replay is the graph's job (a cursor per
segment, checked and moved in the same transaction as the events — see
``cypher/learning/apply_events.cypher``); a segment file is deleted only after its
last event is committed. Turns and manual knowledge are idempotent writes (deterministic
ids, MERGE): they are replayed first and the cursor moved after (``learning/spool_advance``),
so a crash in between replays them again without changing anything.

:class:`SpoolReplayer` walks the segments and hands each run of events of one kind and
namespace to the applier registered for that kind; a kind this version knows but nobody
registered (a process without a conversation store) stops that segment, which waits for a
replayer that knows it.

A line no replay can ever apply — unreadable (a torn or corrupted line), not an event object,
without ``ns``/``seq``, or of a kind this version does not know (written by a newer kgmem) — is
*quarantined* when its segment is claimed: appended (fsync'ed) to ``quarantine.jsonl`` with the
segment name, line number and reason, counted (``quarantined`` in the stats), and removed from the
segment, which is rewritten with its other lines (atomic rename). The valid lines around it are
replayed as usual and the segment is finished; nothing re-reads the bad line or logs it again.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from kgmem.errors import BackendUnavailable, GraphUnavailable
from kgmem.paths import private_dir
from kgmem.runner import LocalIO, Op, Read, SyncIO, Write
from kgmem.runner import run as run_op

log = logging.getLogger(__name__)

PREFIX = "learning-"
DEFERRED_PREFIX = "learning-deferred-"  # segments of deferred repeats (kgmem.learning.deferred)
SUFFIX = ".jsonl"
STATS_FILE = "learning-stats.json"
QUARANTINE_FILE = "quarantine.jsonl"  # not a segment: the segment glob is learning-*.jsonl
LEARNING = "learning"  # tool results (kgmem.learning.engine)
TURN = "turn"  # conversation turns (kgmem.conversation.recorder)
KNOWLEDGE = "knowledge"  # manual knowledge (kgmem.analysis.curation)
SESSION_END = "session_end"  # KGMem.end_session (kgmem.conversation.recorder)
# Every kind this version writes. A line of another kind comes from a newer kgmem: no replayer here will
# ever apply it, and waiting for one would pin its segment (re-read before every write) forever.
KINDS = frozenset({LEARNING, TURN, KNOWLEDGE, SESSION_END})
REPLAY_CHUNK = 2000  # most events per replay transaction


class Spool:
    """The spool directory of one client (thread-safe).

    Args:
        directory: the spool directory.
        outage: whether appends count as ``spooled`` in the shared counters. False for the
            deferred-repeat segment (:mod:`kgmem.learning.deferred`): its events are written by
            their own process within ``defer_flush_ms``; they count as spooled (and replayed) only
            if a replayer has to apply them (Neo4j went down, or the process died first).
    """

    def __init__(self, directory: Path, *, outage: bool = True) -> None:
        self.directory = Path(directory)
        self.outage = outage
        self._lock = threading.Lock()
        self._file: IO[str] | None = None
        self._path: Path | None = None
        self._seq = 0
        # Lines of the open segment already applied by its owner (the deferred flush).
        self.applied = 0
        # Other spools of this client writing into the same directory (the deferred segment): their
        # open segment is theirs to apply, not a replay's (and its applied lines are not pending).
        self.companions: list[Spool] = []

    # -- writing ------------------------------------------------------------------
    def append(self, events: Sequence[dict[str, Any]], kind: str = LEARNING) -> int:
        """Append events (dicts with ``ns``, without ``seq``) of ``kind`` durably; returns how many were written."""
        if not events:
            return 0
        at_ms = int(time.time() * 1000)
        with self._lock:
            handle = self._open()
            lines = []
            for event in events:
                # at_ms: when it was spooled — a replay drops it if a forget of its scope came later.
                line = {"at_ms": at_ms, **event, "kind": kind, "seq": self._seq}
                lines.append(json.dumps(line, ensure_ascii=False, default=str))
                self._seq += 1
            handle.write("\n".join(lines) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        if self.outage:
            self.bump(spooled=len(events))
        return len(events)

    @property
    def path(self) -> Path | None:
        """The segment being written (None when none is open)."""
        return self._path

    @property
    def written(self) -> int:
        """Lines written to the open segment."""
        return self._seq

    def rotate(self, *, delete: bool = False) -> None:
        """Close the segment being written, so a replay can take it; the next append starts a new one.
        ``delete``: the owner applied every line itself — remove the file (before the lock goes, so
        no replayer ever claims it)."""
        with self._lock:
            if self._file is not None:
                if delete and self._path is not None:
                    self._path.unlink(missing_ok=True)
                self._file.close()  # releases the shared lock
            self._file, self._path, self._seq, self.applied = None, None, 0, 0

    def close(self) -> None:
        self.rotate()

    def _open(self) -> IO[str]:
        if self._file is None:
            private_dir(self.directory)  # mode 0700: events hold tool parameters and errors
            prefix = PREFIX if self.outage else DEFERRED_PREFIX
            self._path = self.directory / f"{prefix}{os.getpid()}-{uuid.uuid4().hex[:12]}{SUFFIX}"
            self._file = open(self._path, "a", encoding="utf-8")  # noqa: SIM115 - kept open while writing
            fcntl.flock(self._file.fileno(), fcntl.LOCK_SH)
            self._seq = 0
        return self._file

    # -- replaying ----------------------------------------------------------------
    def segments(self) -> list[Path]:
        """Segment files, oldest first."""
        if not self.directory.is_dir():
            return []
        mine = {self._path, *(c.path for c in self.companions)}
        files = [p for p in self.directory.glob(f"{PREFIX}*{SUFFIX}") if p not in mine]
        return sorted(files, key=lambda p: (p.stat().st_mtime, p.name))

    @contextmanager
    def claim(self, path: Path) -> Iterator[list[dict[str, Any]] | None]:
        """Lock ``path`` for replay and yield its events (None if a writer still holds it). Lines no
        replay can apply are quarantined first (module docstring): the events yielded are the rest."""
        try:
            handle = open(path, encoding="utf-8")  # noqa: SIM115
        except FileNotFoundError:
            yield None
            return
        rewritten: IO[str] | None = None
        try:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                yield None
                return
            if not _same_file(handle, path):  # another replayer rewrote it meanwhile: the next replay takes it
                yield None
                return
            events, bad = _parse(handle.read())
            if bad:
                rewritten = self._quarantine(path, events, bad)
            yield events
        finally:
            if rewritten is not None:
                rewritten.close()
            handle.close()

    def _quarantine(self, path: Path, events: list[dict[str, Any]], bad: list[dict[str, Any]]) -> IO[str]:
        """Move ``bad`` lines of the claimed segment ``path`` to the quarantine file, then replace the
        segment by its ``events`` alone; returns the new file, locked like the claimed one. Quarantine
        first: a crash in between quarantines a line twice at worst, never loses one."""
        target = self.directory / QUARANTINE_FILE
        records = [{**b, "segment": path.name, "at": datetime.now(UTC).isoformat()} for b in bad]
        with open(target, "a", encoding="utf-8") as out:
            fcntl.flock(out.fileno(), fcntl.LOCK_EX)
            out.write("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
            out.flush()
            os.fsync(out.fileno())
        self.bump(quarantined=len(bad))
        tmp = path.with_name(f".{path.name}.tmp")
        new = open(tmp, "w", encoding="utf-8")  # noqa: SIM115 - kept open (and locked) until the claim ends
        fcntl.flock(new.fileno(), fcntl.LOCK_EX)  # locked before it takes the segment's name
        new.write("".join(json.dumps(e, ensure_ascii=False, default=str) + "\n" for e in events))
        new.flush()
        os.fsync(new.fileno())
        os.utime(tmp, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns))  # keeps its place in replay order
        os.replace(tmp, path)
        log.warning(
            "spool segment %s: %d line(s) no replay can apply moved to %s (%s)",
            path.name,
            len(bad),
            target,
            "; ".join(f"line {b['line']}: {b['reason']}" for b in bad[:3]),
        )
        return new

    def retire(self, path: Path, replayed: int) -> None:
        """Delete a fully replayed segment and count its events."""
        path.unlink(missing_ok=True)
        self.bump(replayed=replayed)

    # -- counters -----------------------------------------------------------------
    def pending(self) -> int:
        """Events waiting in segment files (including the one being written). A deferred segment is
        pending only once its owner left it to the replay (or died): while its owner holds it, its
        lines are the owner's to write within ``defer_flush_ms``."""
        total = 0
        applied = {c.path: c.applied for c in self.companions if c.path is not None}
        for path in self.directory.glob(f"{PREFIX}*{SUFFIX}") if self.directory.is_dir() else []:
            if path.name.startswith(DEFERRED_PREFIX) and path not in applied and _held(path):
                continue
            try:
                with open(path, encoding="utf-8") as handle:
                    total += sum(1 for line in handle if line.strip()) - applied.get(path, 0)
            except FileNotFoundError:
                continue
        return total

    def stats(self) -> dict[str, int]:
        """Counters of all processes using this spool directory, plus ``pending``."""
        data = _read_stats(self.directory / STATS_FILE)
        return {
            "pending": self.pending(),
            "spooled": data.get("spooled", 0),
            "replayed": data.get("replayed", 0),
            "dropped": data.get("dropped", 0),
            "quarantined": data.get("quarantined", 0),
        }

    def bump(self, **counts: int) -> None:
        """Add to the shared counters (best effort: a failure here never loses an event)."""
        path = self.directory / STATS_FILE
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            with open(path, "a+", encoding="utf-8") as handle:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
                handle.seek(0)
                data = _loads(handle.read())
                for name, n in counts.items():
                    data[name] = int(data.get(name, 0)) + n
                handle.seek(0)
                handle.truncate()
                handle.write(json.dumps(data))
        except OSError as exc:
            log.warning("could not update spool counters in %s: %s", path, exc)


def _held(path: Path) -> bool:
    """Whether a writer holds ``path`` open (its shared flock)."""
    try:
        with open(path, encoding="utf-8") as handle:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            return False  # closing the handle releases the probe's lock
    except FileNotFoundError:
        return False


def _same_file(handle: IO[str], path: Path) -> bool:
    try:
        return os.fstat(handle.fileno()).st_ino == path.stat().st_ino
    except FileNotFoundError:
        return False


def _parse(text: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The events of a segment, and its lines no replay can apply (``{line, reason, text}``).

    A torn last line is a crash mid-write (its call never returned); a torn line elsewhere is
    corruption. Both are quarantined: kept for inspection, counted, never replayed.
    """
    events, bad = [], []
    for n, line in enumerate(text.splitlines()):
        if not line.strip():
            continue
        reason = None
        try:
            event = json.loads(line)
        except ValueError:
            reason = "unreadable (torn or corrupted)"
        else:
            reason = _unusable(event)
        if reason is None:
            events.append(event)
        else:
            bad.append({"line": n, "reason": reason, "text": line})
    return events, bad


def _unusable(event: Any) -> str | None:
    """Why a parsed line cannot be replayed, or None."""
    if not isinstance(event, dict):
        return "not an event object"
    if not isinstance(event.get("ns"), str) or type(event.get("seq")) is not int:
        return "no ns or seq"
    kind = event.get("kind") or LEARNING
    if kind not in KINDS:
        return f"unknown kind {kind!r} (written by a newer kgmem?)"
    return None


def _read_stats(path: Path) -> dict[str, int]:
    try:
        return _loads(path.read_text(encoding="utf-8"))
    except OSError:
        return {}


def _loads(text: str) -> dict[str, int]:
    try:
        data = json.loads(text) if text.strip() else {}
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


@dataclass(frozen=True)
class Cursor:
    """Where a transactional applier must check and move a segment's replay cursor."""

    segment: str
    expected: int
    upto: int


# (ns, events, cursor) -> an operation (kgmem.runner) answering "committed?". A transactional
# applier moves the cursor in its own transaction and answers False when the cursor had moved
# (another replayer got there first).
Applier = Callable[[str, list[dict[str, Any]], Cursor], Op[bool]]


class SpoolReplayer:
    """Replays a :class:`Spool` into the graph, in order, each event once.

    The replay is an operation (:mod:`kgmem.runner`): the cursor reads and moves and every
    applier yield their I/O, so ``KGMem`` runs it with the sync stores (:meth:`replay`,
    :meth:`replay_if_due`) and ``AsyncKGMem`` with the async ones (:meth:`replay_op`,
    :meth:`replay_if_due_op`). Segment files are claimed with ``flock`` as before.

    Args:
        spool: the spool directory of this client.
        graph: the graph store whose ``offline`` window says Neo4j was just found down (sync or async).
        io: the sync backends :meth:`replay` and :meth:`replay_if_due` run on (sync clients).
        wait: whether a replay waits for one already running in this process (threads) or skips it
            (an event loop must not block on it).
    """

    def __init__(self, spool: Spool, graph: Any, *, io: SyncIO | None = None, wait: bool = True) -> None:
        self.spool = spool
        self.graph = graph
        self.io = io
        self.wait = wait
        self._appliers: dict[str, tuple[Applier, bool]] = {}
        #: drops the events a forget made void before they are applied (set by the composition root)
        self.screen: Callable[[str, str, list[dict[str, Any]]], Op[list[dict[str, Any]]]] | None = None
        self._lock = threading.Lock()
        self.maybe_pending = bool(spool.segments())

    def register(self, kind: str, applier: Applier, transactional: bool) -> None:
        """Who replays ``kind`` (an operation). ``transactional``: the applier checks and moves the
        cursor itself (exactly once); otherwise the applier must be idempotent and the cursor is
        moved after it."""
        self._appliers[kind] = (applier, transactional)

    def append(self, ns: str, events: Sequence[Mapping[str, Any]], kind: str) -> int:
        """Spool ``events`` of ``kind`` in ``ns``; raises OSError if the disk fails too."""
        written = self.spool.append([{**e, "ns": ns} for e in events], kind=kind)
        self.maybe_pending = True
        return written

    def divert_op(self, ns: str, events: Sequence[Mapping[str, Any]], kind: str, exc: BaseException) -> Op[None]:
        """Spool ``events`` Neo4j did not take (``exc``), for writes whose caller must not lose them
        silently: if the disk fails too, count the drop and raise
        :class:`~kgmem.errors.GraphUnavailable` naming both failures (an operation: the append is a
        :class:`~kgmem.runner.LocalIO`, off the event loop under ``AsyncKGMem``)."""
        try:
            yield LocalIO(self.append, (ns, events, kind))
        except OSError as write_error:
            self.spool.bump(dropped=len(events))
            raise GraphUnavailable(
                f"Neo4j unreachable ({exc}) and the spool write failed ({write_error}); "
                f"{len(events)} {kind}(s) not stored"
            ) from exc
        log.warning("Neo4j unreachable (%s); %d %s(s) spooled for replay", exc, len(events), kind)

    def replay(self) -> int:
        """Replay every segment no writer holds (sync stores); returns how many events were applied."""
        return run_op(self.replay_op(), self._sync_io())

    def replay_if_due(self) -> None:
        """:meth:`replay_if_due_op` on the sync stores."""
        run_op(self.replay_if_due_op(), self._sync_io())

    def _sync_io(self) -> SyncIO:
        if self.io is None:
            raise RuntimeError("this spool replayer has no sync stores: run replay_op() with the client's runner")
        return self.io

    def replay_op(self) -> Op[int]:
        """Replay every segment no writer holds; returns how many events were applied (an operation)."""
        if not self._lock.acquire(blocking=self.wait):
            return 0  # another task of this process is replaying right now
        total = 0
        live: set[Path] = set()  # deferred segments their owner still writes (and applies) itself
        try:
            self.spool.rotate()
            for path in self.spool.segments():
                with self.spool.claim(path) as events:
                    if events is not None:
                        total += yield from self._segment(path, events)
                    elif path.name.startswith(DEFERRED_PREFIX):
                        live.add(path)
            # Another client's live deferred segment is not pending here: polling it before every
            # write would also keep this client off its own deferred path. If its owner dies, the
            # next client to start (or replay_spool()) replays it.
            self.maybe_pending = any(p not in live for p in self.spool.segments())
        finally:
            self._lock.release()
        if total:
            log.info("replayed %d spooled event(s)", total)
        return total

    def replay_if_due_op(self) -> Op[None]:
        """Replay when something may be spooled and Neo4j is not known to be down. Raises the
        graph's unavailability (the caller spools); any other failure is logged, never raised."""
        if not self.maybe_pending or getattr(self.graph, "offline", False):
            return
        try:
            yield from self.replay_op()
        except BackendUnavailable:
            raise
        except Exception:  # noqa: BLE001 - a bad segment must not break the agent's loop
            self.maybe_pending = False
            log.exception("spool replay failed; segments are kept for `KGMem.replay_spool()`")

    def _segment(self, path: Path, events: list[dict[str, Any]]) -> Op[int]:
        """Replay one segment. Learning events go in seq order, one run per namespace change, under
        the segment's own cursor (the cursor older segments used). Turns and knowledge do not
        interact with learning events or each other: each (kind, ns) goes as one run under a cursor
        of its own — a handful of round trips per segment however the kinds interleave."""
        applied = deferred = 0
        complete = True
        stuck: set[str] = set()  # cursors whose earlier chunk did not go: later chunks must wait too
        for kind, ns, run in _groups(events):
            key = path.name if kind == LEARNING else f"{path.name}|{kind}|{ns}"
            if kind not in self._appliers:
                log.info(
                    "spool segment %s: no replayer for %r events in this process; left for one that has",
                    path.name,
                    kind,
                )
                stuck.add(key)
            n = None if key in stuck else (yield from self.apply_op(key, kind, ns, run))
            if n is None:
                complete = False
                stuck.add(key)
            else:
                applied += n
                deferred += sum(1 for e in run[len(run) - n :] if e.get("deferred"))  # the last n went
        # Deferred repeats a replayer had to apply (their owner lost Neo4j or died) went the spool's
        # way after all: counted as spooled here, once, so spooled = replayed still adds up.
        if deferred:
            self.spool.bump(spooled=deferred)
        if complete:
            self.spool.retire(path, applied)
        elif applied:
            self.spool.bump(replayed=applied)
        return applied

    def apply_op(
        self, key: str, kind: str, ns: str, run: list[dict[str, Any]], cursor: int | None = None
    ) -> Op[int | None]:
        """Apply the events of ``run`` past cursor ``key``; the count applied, None if the cursor kept
        moving. ``cursor``: where the caller knows the cursor is (the deferred flush, sole writer of
        its segment) — saves the read; a wrong guess costs the read after all, never a double count."""
        applier, transactional = self._appliers[kind]
        for _ in range(3):  # a concurrent replayer moved the cursor: re-read it and go on
            if cursor is None:
                rows = yield Read("learning/spool_cursor", {"segment": key})
                cursor = int(rows[0]["seq"])
            todo = [e for e in run if int(e["seq"]) > cursor]
            if not todo:
                return 0
            last = int(todo[-1]["seq"])
            if self.screen is not None:  # what a later forget made void is dropped (kgmem.forget.guard)
                todo = yield from self.screen(ns, kind, todo)
            if not todo:
                ok = yield from self._advance(key, cursor, last)
            elif transactional:
                ok = yield from applier(ns, todo, Cursor(key, cursor, last))
            else:
                yield from applier(ns, todo, Cursor(key, cursor, last))
                ok = yield from self._advance(key, cursor, last)
            if ok:
                return len(todo)
            cursor = None
            time.sleep(0.05)
        log.warning("spool cursor %s kept moving; leaving it for the next replay", key)
        return None

    @staticmethod
    def _advance(key: str, cursor: int, last: int) -> Op[bool]:
        rows = yield Write(
            "learning/spool_advance",
            {"segment": key, "expected": cursor, "upto": last, "now": datetime.now(UTC).isoformat()},
        )
        return bool(rows)


def _groups(events: Iterable[Mapping[str, Any]]) -> list[tuple[str, str, list[dict[str, Any]]]]:
    """Learning events as consecutive runs per namespace (their order matters: a success closes the
    failure before it); every other kind as one group per namespace, in seq order."""
    out: list[tuple[str, str, list[dict[str, Any]]]] = []
    others: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for kind, ns, run in runs(events):
        if kind != LEARNING:
            others.setdefault((kind, ns), []).extend(run)
        elif out and out[-1][1] == ns:  # only other kinds came in between
            out[-1][2].extend(run)
        else:
            out.append((kind, ns, run))
    groups = out + [(kind, ns, run) for (kind, ns), run in others.items()]
    # Bounded transactions after a long outage; chunks of one cursor are applied in order.
    return [(kind, ns, run[i : i + REPLAY_CHUNK]) for kind, ns, run in groups for i in range(0, len(run), REPLAY_CHUNK)]


def runs(events: Iterable[Mapping[str, Any]]) -> Iterator[tuple[str, str, list[dict[str, Any]]]]:
    """Consecutive events of the same kind and namespace, in order: ``(kind, ns, events)``."""
    run: list[dict[str, Any]] = []
    key: tuple[str, str] | None = None
    for event in events:
        this = (event.get("kind") or LEARNING, event["ns"])
        if run and this != key:
            yield key[0], key[1], run  # type: ignore[index]
            run = []
        key = this
        run.append(dict(event))
    if run:
        yield key[0], key[1], run  # type: ignore[index]

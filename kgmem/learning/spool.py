"""Append-only spool for learning events that could not reach Neo4j.

Layout under ``settings.spool_dir`` (``$KGMEM_HOME/spool``)::

    learning-<pid>-<random>.jsonl   one segment per writer; one JSON event per line,
                                    ``seq`` = line number (0-based)
    learning-stats.json             events spooled / replayed / dropped, all processes

A writer holds a shared ``flock`` on its open segment; a replayer takes an exclusive
non-blocking lock, so it never replays a segment that is still being written. Lines
are flushed and fsync'ed before ``append`` returns: once ``tool_result`` has returned,
the event survives a crash. Exactly-once replay is the graph's job (a cursor per
segment, checked and moved in the same transaction as the events — see
``cypher/learning/apply_events.cypher``); a segment file is deleted only after its
last event is committed.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import threading
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from kgmem.paths import private_dir

log = logging.getLogger(__name__)

PREFIX = "learning-"
SUFFIX = ".jsonl"
STATS_FILE = "learning-stats.json"


class Spool:
    """The spool directory of one client (thread-safe)."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        self._lock = threading.Lock()
        self._file: IO[str] | None = None
        self._path: Path | None = None
        self._seq = 0

    # -- writing ------------------------------------------------------------------
    def append(self, events: Sequence[dict[str, Any]]) -> int:
        """Append events (dicts without ``seq``) durably; returns how many were written."""
        if not events:
            return 0
        with self._lock:
            handle = self._open()
            lines = []
            for event in events:
                lines.append(json.dumps({**event, "seq": self._seq}, ensure_ascii=False, default=str))
                self._seq += 1
            handle.write("\n".join(lines) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        self.bump(spooled=len(events))
        return len(events)

    def rotate(self) -> None:
        """Close the segment being written, so a replay can take it; the next append starts a new one."""
        with self._lock:
            if self._file is not None:
                self._file.close()  # releases the shared lock
            self._file, self._path, self._seq = None, None, 0

    def close(self) -> None:
        self.rotate()

    def _open(self) -> IO[str]:
        if self._file is None:
            private_dir(self.directory)  # mode 0700: events hold tool parameters and errors
            self._path = self.directory / f"{PREFIX}{os.getpid()}-{uuid.uuid4().hex[:12]}{SUFFIX}"
            self._file = open(self._path, "a", encoding="utf-8")  # noqa: SIM115 - kept open while writing
            fcntl.flock(self._file.fileno(), fcntl.LOCK_SH)
            self._seq = 0
        return self._file

    # -- replaying ----------------------------------------------------------------
    def segments(self) -> list[Path]:
        """Segment files, oldest first."""
        if not self.directory.is_dir():
            return []
        files = [p for p in self.directory.glob(f"{PREFIX}*{SUFFIX}") if p != self._path]
        return sorted(files, key=lambda p: (p.stat().st_mtime, p.name))

    @contextmanager
    def claim(self, path: Path) -> Iterator[list[dict[str, Any]] | None]:
        """Lock ``path`` for replay and yield its events (None if a writer still holds it)."""
        try:
            handle = open(path, encoding="utf-8")  # noqa: SIM115
        except FileNotFoundError:
            yield None
            return
        try:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                yield None
                return
            yield _parse(handle.read(), path)
        finally:
            handle.close()

    def retire(self, path: Path, replayed: int) -> None:
        """Delete a fully replayed segment and count its events."""
        path.unlink(missing_ok=True)
        self.bump(replayed=replayed)

    # -- counters -----------------------------------------------------------------
    def pending(self) -> int:
        """Events waiting in segment files (including the one being written)."""
        total = 0
        for path in self.directory.glob(f"{PREFIX}*{SUFFIX}") if self.directory.is_dir() else []:
            try:
                with open(path, encoding="utf-8") as handle:
                    total += sum(1 for line in handle if line.strip())
            except FileNotFoundError:
                continue
        return total

    def stats(self) -> dict[str, int]:
        """Counters of all processes using this spool directory, plus ``pending``."""
        data = _read_stats(self.directory / STATS_FILE)
        return {"pending": self.pending(), "spooled": data.get("spooled", 0),
                "replayed": data.get("replayed", 0), "dropped": data.get("dropped", 0)}

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


def _parse(text: str, path: Path) -> list[dict[str, Any]]:
    events = []
    lines = text.splitlines()
    for n, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            events.append(json.loads(line))
        except ValueError:
            # Only the last line can be torn (a crash mid-write, before fsync returned,
            # so its tool_result never returned either); anything else is corruption.
            level = logging.INFO if n == len(lines) - 1 else logging.ERROR
            log.log(level, "skipping unreadable line %d of spool segment %s", n, path)
    return events


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

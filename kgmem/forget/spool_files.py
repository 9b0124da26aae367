"""Spooled events of a forgotten scope: found in the spool's files and removed from them.

The spool (:mod:`kgmem.spool`) holds events written while Neo4j was unreachable, as JSON lines,
and lines no replay could apply (``quarantine.jsonl``). A forget rewrites every file no writer
holds without the lines of its scope (atomic rename, private mode). A segment another process
still writes (or a replay has claimed) is left alone: its lines carry the time they were spooled,
and the replay drops the ones a forget made void (:func:`kgmem.forget.guard.spool_filter_op`).
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kgmem.forget.guard import _keys
from kgmem.spool import PREFIX, QUARANTINE_FILE, SUFFIX

log = logging.getLogger(__name__)

#: Whether one spooled event (a parsed line) belongs to the forgotten scope.
Matcher = Callable[[dict[str, Any], str], bool]


def matcher(ns: str, kind: str, value: str | None, ids: set[str], needle: str | None) -> Matcher:
    """The events of scope ``kind`` in ``ns``: all of them (everything), a session's (by name), the
    ones naming a forgotten id, or whose line holds an entity's name (``needle``, lower-cased)."""

    def matches(event: dict[str, Any], line: str) -> bool:
        if event.get("ns") != ns:
            return False
        if kind == "everything":
            return True
        if kind == "session" and event.get("session") == value:
            return True
        if needle is not None and needle in line.lower():
            return True
        _, item = _keys(ns, str(event.get("kind") or "learning"), event)
        return item is not None and item in ids

    return matches


def _files(directory: Path) -> list[Path]:
    if not directory.is_dir():
        return []
    return sorted(directory.glob(f"{PREFIX}*{SUFFIX}")) + [p for p in [directory / QUARANTINE_FILE] if p.exists()]


def _event(record: Any, quarantined: bool) -> dict[str, Any] | None:
    """The event of a line: the line itself, or in the quarantine the event its ``text`` held."""
    if not isinstance(record, dict):
        return None
    if not quarantined:
        return record
    try:
        inner = json.loads(str(record.get("text") or ""))
    except ValueError:
        return None
    return inner if isinstance(inner, dict) else None


def purge(directory: Path, matches: Matcher, needle: str | None = None, *, dry_run: bool = False) -> int:
    """Remove (or with ``dry_run`` count) the spooled lines ``matches`` selects — and, in the
    quarantine, unreadable lines holding ``needle`` — from every file no writer holds; returns how many."""
    total = 0
    for path in _files(directory):
        quarantined = path.name == QUARANTINE_FILE
        try:
            handle = open(path, encoding="utf-8")  # noqa: SIM115 - held (locked) while the file is rewritten
        except FileNotFoundError:
            continue
        with handle:
            try:  # a writer's shared lock or a replay's claim: leave the file to them
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue
            lines = handle.read().splitlines()
            kept, gone = [], 0
            for line in lines:
                try:
                    event = _event(json.loads(line), quarantined)
                except ValueError:
                    event = None
                hit = matches(event, line) if event is not None else bool(needle and needle in line.lower())
                if hit:
                    gone += 1
                else:
                    kept.append(line)
            total += gone
            if gone and not dry_run:
                _rewrite(path, kept)
    return total


def _rewrite(path: Path, lines: list[str]) -> None:
    if not lines and path.name != QUARANTINE_FILE:
        path.unlink(missing_ok=True)
        return
    stat = path.stat()
    tmp = path.with_name(f".{path.name}.forget")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write("".join(line + "\n" for line in lines))
        out.flush()
        os.fsync(out.fileno())
    os.utime(tmp, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # keeps its place in replay order
    os.replace(tmp, path)
    log.info("forget: rewrote %s without the forgotten lines", path.name)

"""Counter files under ``$KGMEM_HOME/stats``: one JSON object each, shared by every client process.

Clients add to a file at once (``kgmem status`` and ``kgmem learning status`` read it from another
process), so :func:`update_json` serialises the read-modify-write under a lock file and replaces the
file atomically: a reader sees the whole old or the whole new object, never half of one.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

try:  # POSIX: serialise the read-modify-write across processes
    import fcntl
except ImportError:  # pragma: no cover - Windows: best effort without a lock
    fcntl = None  # type: ignore[assignment]


def read_json(path: Path) -> dict[str, Any]:
    """The object saved in ``path``; ``{}`` when it is missing, unreadable or not an object."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


@contextmanager
def update_json(path: Path) -> Iterator[dict[str, Any]]:
    """Yield the object of ``path`` to change in place, then save it (lock held throughout).

    Raises :class:`OSError` when the directory, lock or file cannot be written; nothing is saved
    when the caller's block raises."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with _locked(path.with_name(path.name + ".lock")):
        data = read_json(path)
        yield data
        # per process and thread: two writers never share a temporary file
        tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")
        tmp.replace(path)


@contextmanager
def _locked(lock_path: Path) -> Iterator[None]:
    with open(lock_path, "a") as handle:
        if fcntl is not None:
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            if fcntl is not None:
                fcntl.flock(handle, fcntl.LOCK_UN)

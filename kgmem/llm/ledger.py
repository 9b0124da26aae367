"""LLM usage saved across processes: ``$KGMEM_HOME/stats/llm.json``, one entry per provider and model.

A generator built from the settings adds each request's counts to the file (read-modify-write under
a lock, atomic replace), so ``kgmem status`` — another process — shows what every client has spent.
One small file write per LLM request costs nothing beside the request itself.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

try:  # POSIX: serialise the read-modify-write across processes
    import fcntl
except ImportError:  # pragma: no cover - Windows: best effort without a lock
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger(__name__)

USAGE_FILE = "llm.json"


def usage_path(home: Path) -> Path:
    """Where the usage of the clients of ``home`` is saved."""
    return home / "stats" / USAGE_FILE


def add_usage(path: Path, provider: str, model: str, deltas: Mapping[str, int]) -> None:
    """Add ``deltas`` to the entry ``provider:model`` of ``path`` (best effort: a failure is logged)."""
    key = f"{provider}:{model}"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with _locked(path.with_name(path.name + ".lock")):
            data = read_usage(path)
            entry = data.setdefault(key, {"provider": provider, "model": model})
            for name, n in deltas.items():
                entry[name] = int(entry.get(name, 0)) + int(n)
            tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
            tmp.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")
            tmp.replace(path)
    except OSError as exc:  # usage is a diagnostic; never fail an analysis over it
        log.warning("could not save LLM usage to %s: %s", path, exc)


def read_usage(path: Path) -> dict[str, Any]:
    """``{"provider:model": {"provider", "model", "calls", "failures", "retries", "input_tokens",
    "output_tokens"}}`` saved so far ({} when none)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


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

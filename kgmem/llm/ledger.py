"""LLM usage saved across processes: ``$KGMEM_HOME/stats/llm.json``, one entry per provider and model.

A generator built from the settings adds each request's counts to the file (read-modify-write under
a lock, atomic replace), so ``kgmem status`` — another process — shows what every client has spent.
One small file write per LLM request costs nothing beside the request itself.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from kgmem.stats_file import read_json, update_json

log = logging.getLogger(__name__)

USAGE_FILE = "llm.json"


def usage_path(home: Path) -> Path:
    """Where the usage of the clients of ``home`` is saved."""
    return home / "stats" / USAGE_FILE


def add_usage(path: Path, provider: str, model: str, deltas: Mapping[str, int]) -> None:
    """Add ``deltas`` to the entry ``provider:model`` of ``path`` (best effort: a failure is logged)."""
    key = f"{provider}:{model}"
    try:
        with update_json(path) as data:
            entry = data.setdefault(key, {"provider": provider, "model": model})
            for name, n in deltas.items():
                entry[name] = int(entry.get(name, 0)) + int(n)
    except OSError as exc:  # usage is a diagnostic; never fail an analysis over it
        log.warning("could not save LLM usage to %s: %s", path, exc)


def read_usage(path: Path) -> dict[str, Any]:
    """``{"provider:model": {"provider", "model", "calls", "failures", "retries", "input_tokens",
    "output_tokens"}}`` saved so far ({} when none)."""
    return read_json(path)

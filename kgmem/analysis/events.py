"""Learning events: one structured log line each, and counters.

Events: ``inserted``, ``merged``, ``contradicted``, ``revived``, ``skipped`` and
``dropped`` (plus bookkeeping counters such as ``analyses``, ``analysis_failed``,
``invalid_items`` and token usage). Every event is logged as
``kgmem.event {"event": "knowledge.merged", ...}`` — JSON after a fixed prefix, so a
log shipper can parse it; drops are logged at WARNING, the rest at INFO.

Counters live in one :class:`AnalysisStats` per client (no module-level state).
:meth:`AnalysisStats.persist` adds them to ``$KGMEM_HOME/stats/analysis.json`` so
``kgmem learning status`` (another process) can show them; see :func:`read_persisted`.
"""

from __future__ import annotations

import json
import logging
import threading
from collections import Counter
from pathlib import Path
from typing import Any

from kgmem.stats_file import read_json, update_json

log = logging.getLogger(__name__)

EVENTS = ("inserted", "merged", "contradicted", "revived", "skipped", "dropped")
STATS_FILE = "analysis.json"


class AnalysisStats:
    """Thread-safe counters of one client, per namespace, plus which extractor is in use."""

    def __init__(self, extractor: str = "offline") -> None:
        self.extractor = extractor
        self._lock = threading.Lock()
        self._counts: dict[str, Counter[str]] = {}
        self._unsaved: dict[str, Counter[str]] = {}

    def emit(self, event: str, ns: str, level: int = logging.INFO, **fields: Any) -> None:
        """Count ``event`` for ``ns`` and log it as one structured line."""
        self.count(ns, event)
        if log.isEnabledFor(level):
            payload = {"event": f"knowledge.{event}", "ns": ns, **fields}
            log.log(level, "kgmem.event %s", json.dumps(payload, default=str, ensure_ascii=False))

    def count(self, ns: str, name: str, n: int = 1) -> None:
        """Add ``n`` to counter ``name`` of ``ns`` (no log line)."""
        if n == 0:
            return
        with self._lock:
            self._counts.setdefault(ns, Counter())[name] += n
            self._unsaved.setdefault(ns, Counter())[name] += n

    def snapshot(self, ns: str | None = None) -> dict[str, Any]:
        """Counters of ``ns`` (or summed over all namespaces), every event present (0 if none)."""
        with self._lock:
            if ns is not None:
                counts = Counter(self._counts.get(ns, Counter()))
            else:
                counts = sum(self._counts.values(), Counter())
        return {**dict.fromkeys(EVENTS, 0), **counts, "extractor": self.extractor}

    def persist(self, home: Path) -> None:
        """Add the counts not yet saved to ``home/stats/analysis.json`` (best effort, atomic replace)."""
        with self._lock:
            unsaved, self._unsaved = self._unsaved, {}
        if not unsaved:
            return
        path = home / "stats" / STATS_FILE
        try:
            with update_json(path) as data:
                for ns, counts in unsaved.items():
                    entry = data.setdefault(ns, {})
                    for name, n in counts.items():
                        entry[name] = int(entry.get(name, 0)) + n
                    entry["extractor"] = self.extractor
        except OSError as exc:  # counters are diagnostics; never fail the caller over them
            log.warning("could not save analysis counters to %s: %s", path, exc)


def read_persisted(home: Path, ns: str | None = None) -> dict[str, Any]:
    """Counters saved by earlier clients: ``{ns: {event: n, ..., "extractor": ...}}`` or one ns's dict."""
    data = read_json(home / "stats" / STATS_FILE)
    if ns is None:
        return data
    return {**dict.fromkeys(EVENTS, 0), **data.get(ns, {})}

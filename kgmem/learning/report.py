"""What ``kgmem learning status|history`` shows (graph reads only: no model, no Chroma).

The conversation-analysis counters that ``kgmem learning status`` also prints come from
:mod:`kgmem.analysis`; the CLI adds them, so learning does not depend on analysis."""

from __future__ import annotations

from typing import Any

from kgmem.config import Settings
from kgmem.graph import GraphStore
from kgmem.spool import Spool


def learning_status(graph: GraphStore, settings: Settings, ns: str, top: int = 5) -> dict[str, Any]:
    """Settings, counts by category, fixes, spool/replay/drop counters and the top errors of ``ns``."""
    row = graph.read("learning/status_counts", ns=ns, top=top, auto_apply=settings.learning.auto_apply_threshold)[0]
    replayed = graph.read("learning/spool_totals")[0]
    status: dict[str, Any] = {
        "namespace": ns,
        "settings": settings.learning.model_dump(),
        "patterns": row["patterns"],
        "occurrences": row["occurrences"],
        "vector_pending": row["vector_pending"],
        "by_category": row["by_category"],
        "fixes": row["fixes"],
        "resolutions": row["resolutions"],
        "auto_apply_fixes": row["auto_apply"],
        "similar_links": row["similar_links"],
        "top_errors": row["top_errors"],
        "spool": {
            **Spool(settings.spool_dir).stats(),
            "dir": str(settings.spool_dir),
            "replayed_in_graph": replayed["events"],
            "segments_replayed": replayed["segments"],
        },
    }
    return status


def learning_history(graph: GraphStore, ns: str, limit: int = 20) -> list[dict[str, Any]]:
    """The most recently seen error patterns of ``ns`` with their best fix."""
    return graph.read("learning/history", ns=ns, limit=limit)

"""`kgmem decay`: staleness decay of knowledge confidence and stale call-graph decay, as one batch job."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime

from kgmem.callgraph import CallGraph
from kgmem.errors import ValidationError
from kgmem.graph import GraphStore

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class DecaySettings:
    """Knowledge not seen for ``stale_days`` halves its confidence every ``half_life_days`` (never below ``floor``)."""

    stale_days: int = 30
    half_life_days: float = 90.0
    floor: float = 0.1

    def __post_init__(self) -> None:
        if self.stale_days < 0:
            raise ValidationError("stale_days: must be >= 0")
        if self.half_life_days <= 0:
            raise ValidationError("half_life_days: must be > 0")
        if not 0.0 <= self.floor <= 1.0:
            raise ValidationError("floor: must be within [0, 1]")


@dataclass(frozen=True)
class DecayResult:
    knowledge_decayed: int
    knowledge_total_drop: float
    callgraph_decayed: int


def decay_factor(days_stale: float, half_life_days: float) -> float:
    """Multiplier after ``days_stale`` days of decay: ``0.5 ** (days / half_life)``."""
    return 0.5 ** (max(0.0, days_stale) / half_life_days)


def run_decay(
    graph: GraphStore,
    ns: str,
    settings: DecaySettings | None = None,
    now: datetime | None = None,
    callgraph: CallGraph | None = None,
) -> DecayResult:
    """Apply both decays to namespace ``ns``; idempotent for a given ``now``."""
    s = settings or DecaySettings()
    stamp = (now or datetime.now(UTC)).isoformat()
    row = graph.write(
        "maintenance/decay_knowledge",
        ns=ns,
        now=stamp,
        stale_days=s.stale_days,
        half_life_days=float(s.half_life_days),
        floor=s.floor,
    )[0]
    edges = (callgraph or CallGraph(graph)).decay(ns)
    result = DecayResult(int(row["decayed"]), round(float(row["total_drop"]), 6), edges)
    log.info("decay %s: %s", ns, result)
    return result

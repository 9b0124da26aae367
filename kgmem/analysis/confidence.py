"""Confidence evolution of knowledge items (seed 003, docs/analysis.md) — pure functions.

``cypher/analysis/apply_knowledge.cypher`` applies the same formulas inside the
write transaction (so concurrent writers never lose an update); the integration
tests check the graph against these functions.
"""

from __future__ import annotations

from kgmem.config import AnalysisSettings

REVIVAL_THRESHOLD = 0.5


def boost(current: float, max_auto: float = 0.95, factor: float = 0.2) -> float:
    """One re-observation: ``min(max_auto, c + factor·(max_auto − c))`` — 20 % of the headroom.

    0.5 → 0.59 → 0.662 → 0.7196 → … converging on ``max_auto`` (only manual items reach 1.0).
    """
    return min(max_auto, current + factor * (max_auto - current))


def penalise(current: float, penalty: float = 0.3, floor: float = 0.1) -> float:
    """A contradiction: flat ``penalty``, never below ``floor`` (0.2 → 0.1, 0.7 → 0.4)."""
    return max(floor, current - penalty)


def revived(old: float, new: float, threshold: float = REVIVAL_THRESHOLD) -> bool:
    """A merge lifted a suppressed item back over the threshold (the ``revived`` event)."""
    return old < threshold <= new


def params(settings: AnalysisSettings) -> dict[str, float]:
    """The formula constants as Cypher parameters."""
    return {
        "max_auto": settings.max_auto_confidence,
        "factor": settings.boost_factor,
        "penalty": settings.contradiction_penalty,
        "floor": settings.confidence_floor,
        "initial": settings.initial_confidence,
    }

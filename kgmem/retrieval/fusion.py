"""Pure score arithmetic: weighted reciprocal-rank fusion and the quality adjustment.

No I/O here, so every formula is unit-tested directly (tests/unit/retrieval/test_fusion.py).

Fusion: each leg contributes ``weight / (k + rank)`` for every item
it returned; an item found by both the vector and the keyword leg gets an extra
``agreement_bonus / (k + worse_rank)`` — agreement is evidence, but only as strong
as the weaker of the two votes.

Graph: a neighbour reached by the traversal inherits its seed's fused score,
decayed per hop (``hop_decay`` × the edge's similarity/confidence per step), times
``graph_weight``; where it may enter the ranking is decided by
:func:`kgmem.retrieval.slots.interleave` (neighbours compete for their own slots).

Quality: the fused score is multiplied by three factors, each neutral (1.0)
for an item nobody has judged yet:

* confidence ``1 − w_c·(1 − c)`` (items without a confidence are neutral),
* usage ``1 + w_u·(p − p0)/p0`` below the prior mean ``p0`` and
  ``1 + w_u·(p − p0)/(1 − p0)`` above it, with ``p = α/(α+β)`` — so the factor
  spans ``[1 − w_u, 1 + w_u]``,
* staleness ``1 − w_s·(1 − exp(−λ·age))`` with ``λ = ln 2 / half-life``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from kgmem.retrieval.types import Candidate

AGREEMENT_LEGS = ("vector", "keyword")
_AGREEMENT = frozenset(AGREEMENT_LEGS)


@dataclass(slots=True)
class Fused:
    """An item after fusion: its fused score, the per-leg contributions and the candidates behind it."""

    id: str
    kind: str
    score: float = 0.0
    breakdown: dict[str, float] = field(default_factory=dict)
    by_leg: dict[str, Candidate] = field(default_factory=dict)

    @property
    def legs(self) -> tuple[str, ...]:
        return tuple(self.by_leg)


def rrf_term(rank: int, weight: float, k: int) -> float:
    """One leg's reciprocal-rank contribution for a 1-based ``rank``."""
    if rank < 1:
        raise ValueError(f"rank must be >= 1, got {rank}")
    return weight / (k + rank)


def fuse(
    legs: Mapping[str, Sequence[Candidate]],
    weights: Mapping[str, float],
    k: int = 60,
    agreement_bonus: float = 0.0,
) -> list[Fused]:
    """Weighted RRF over ``legs`` (leg name → candidates with 1-based ranks); best first.

    Ties are broken by the order of first appearance (vector leg first), which keeps the
    result deterministic.
    """
    fused: dict[str, Fused] = {}
    for leg, candidates in legs.items():
        weight = weights.get(leg, 0.0)
        for cand in candidates:
            item = fused.get(cand.id)
            if item is None:
                item = fused[cand.id] = Fused(cand.id, cand.kind)
            elif leg in item.by_leg:  # a leg lists an item once; keep its best rank
                continue
            item.by_leg[leg] = cand
            rank = cand.rank
            if rank < 1:
                rrf_term(rank, weight, k)  # raises, naming the rank
            term = weight / (k + rank)  # rrf_term inline: a call per candidate cost more than the sum
            item.breakdown[leg] = term
            item.score += term
    if agreement_bonus > 0:
        for item in fused.values():
            if item.by_leg.keys() >= _AGREEMENT:
                worse = max(item.by_leg[leg].rank for leg in AGREEMENT_LEGS)
                bonus = rrf_term(worse, agreement_bonus, k)
                item.breakdown["agreement"] = bonus
                item.score += bonus
    # A stable sort keeps equal scores in order of first appearance.
    return sorted(fused.values(), key=_neg_score)


def _neg_score(item: Fused) -> float:
    return -item.score


@dataclass(frozen=True)
class QualityWeights:
    """The quality knobs of a :class:`~kgmem.retrieval.config.SearchConfig`."""

    confidence: float = 0.3
    usage: float = 0.5
    staleness: float = 0.2
    prior_alpha: float = 1.0
    prior_beta: float = 1.0


def usage_posterior(
    alpha: float | None, beta: float | None, prior_alpha: float = 1.0, prior_beta: float = 1.0
) -> float:
    """Posterior mean ``α/(α+β)`` of the Beta usage model (the prior when never judged)."""
    a = prior_alpha if alpha is None else max(float(alpha), 1e-9)
    b = prior_beta if beta is None else max(float(beta), 1e-9)
    return a / (a + b)


def staleness(age_days: float | None, half_life_days: float | None) -> float:
    """``exp(−λ·age)`` with ``λ = ln2 / half_life``; 1.0 when the kind never goes stale or age is unknown."""
    if half_life_days is None or age_days is None or age_days <= 0:
        return 1.0
    return math.exp(-math.log(2) / half_life_days * age_days)


def age_days(timestamp: Any, now: datetime) -> float | None:
    """Days between an ISO-8601 string (or datetime-like) and ``now``; None if unknown/unparseable."""
    if timestamp is None:
        return None
    if hasattr(timestamp, "to_native"):  # neo4j.time.DateTime
        timestamp = timestamp.to_native()
    if isinstance(timestamp, str):
        try:
            timestamp = datetime.fromisoformat(timestamp)
        except ValueError:
            return None
    if not isinstance(timestamp, datetime):
        return None
    if timestamp.tzinfo is None:
        timestamp = timestamp.replace(tzinfo=UTC)
    return max(0.0, (now - timestamp).total_seconds() / 86400.0)


def quality_factors(
    props: Mapping[str, Any],
    half_life_days: float | None,
    weights: QualityWeights,
    now: datetime,
    sample: Callable[[float, float], float] | None = None,
) -> dict[str, float]:
    """The three multiplicative factors (each 1.0 = neutral) and their product under ``"quality"``.

    ``props`` may carry a session overlay's view (``v_alpha``, ``v_beta``: BQAR), added to the global
    posterior. ``sample(α, β)``, when given, replaces the posterior mean by a draw (Thompson sampling).
    """
    confidence = props.get("confidence")
    f_conf = 1.0 if confidence is None else 1.0 - weights.confidence * (1.0 - min(1.0, max(0.0, float(confidence))))
    p0 = weights.prior_alpha / (weights.prior_alpha + weights.prior_beta)
    alpha, beta = props.get("alpha"), props.get("beta")
    if props.get("v_alpha") is not None or props.get("v_beta") is not None:
        alpha = (weights.prior_alpha if alpha is None else float(alpha)) + float(props.get("v_alpha") or 0.0)
        beta = (weights.prior_beta if beta is None else float(beta)) + float(props.get("v_beta") or 0.0)
    if sample is not None:
        p = sample(
            weights.prior_alpha if alpha is None else float(alpha), weights.prior_beta if beta is None else float(beta)
        )
    else:
        p = usage_posterior(alpha, beta, weights.prior_alpha, weights.prior_beta)
    span = p0 if p < p0 else 1.0 - p0
    f_usage = 1.0 + weights.usage * (p - p0) / span if span > 0 else 1.0
    # Freshness: the last time the item was confirmed (used/updated), else when it was said.
    if half_life_days is None:  # the kind never goes stale: no timestamp to parse
        f_stale = 1.0
    else:
        stamp = props.get("last_used") or props.get("updated_at") or props.get("ts")
        f_stale = 1.0 - weights.staleness * (1.0 - staleness(age_days(stamp, now), half_life_days))
    return {
        "confidence": f_conf,
        "usage": f_usage,
        "staleness": f_stale,
        "posterior": p,
        "quality": f_conf * f_usage * f_stale,
    }

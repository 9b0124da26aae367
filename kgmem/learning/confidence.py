"""Confidence math and fix ranking (pure functions; the Cypher in
``cypher/learning/apply_events.cypher`` applies the same formulas in the graph).

- an outcome moves a fix's confidence by ``+boost`` (success, default 0.1) or
  ``−penalty`` (failure, default 0.2), clamped to ``[lo, hi]`` (default [0.1, 1.0]);
  float throughout (the seed system truncated 0.3 to 0);
- the Beta counts ``alpha = 1 + successes``, ``beta = 1 + failures`` keep the evidence;
- propagation gives each ``SIMILAR_TO`` neighbour carrying the same fix
  ``rate × boost × similarity`` (rate 0.3);
- a fix borrowed from a similar error is attenuated: ``confidence × similarity``, and is
  auto-applied only over an *identity* link (the two errors provably the same: same tool, core
  template and identity keys, or a fix the link lent worked on both —
  :func:`kgmem.learning.identity.link_proof`); over any other link it stays a suggestion, whatever
  its confidence; over an identity link it keeps its confidence;
- a fix that failed on an error and never worked there (successes 0, failures ≥ 1, not a
  user's) is not suggested for it — neither directly nor borrowed through a neighbour — but
  listed as failed (:func:`failed_fixes`); one success brings it back. A neighbour's fix that
  never worked on the neighbour is not lent either.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from kgmem.config import LearningSettings
from kgmem.learning.models import FailedFix, FixSuggestion

# Sources in ranking order: a person's correction outranks anything learnt automatically.
_SOURCE_RANK = {"user": 0}
_EPS = 1e-9  # 0.6 + 0.1 is 0.7 in decimal, 0.69999999999999996 in binary


@dataclass(frozen=True)
class ConfidenceRules:
    """The knobs of :class:`~kgmem.config.LearningSettings` that the math uses."""

    boost: float = 0.1
    penalty: float = 0.2
    lo: float = 0.1
    hi: float = 1.0
    initial: float = 0.5
    rate: float = 0.3
    auto_apply: float = 0.7

    @classmethod
    def from_settings(cls, s: LearningSettings) -> ConfidenceRules:
        return cls(
            s.success_boost,
            s.failure_penalty,
            s.confidence_min,
            s.confidence_max,
            s.initial_fix_confidence,
            s.propagation_rate,
            s.auto_apply_threshold,
        )

    def cypher_params(self) -> dict[str, float]:
        """Parameters of ``learning/apply_events``."""
        return {
            "boost": self.boost,
            "penalty": self.penalty,
            "lo": self.lo,
            "hi": self.hi,
            "initial": self.initial,
            "rate": self.rate,
        }


def clamp(x: float, lo: float, hi: float) -> float:
    return lo if x < lo else hi if x > hi else x


def after_outcome(confidence: float, success: bool, rules: ConfidenceRules) -> float:
    """Confidence after one success/failure."""
    delta = rules.boost if success else -rules.penalty
    return clamp(confidence + delta, rules.lo, rules.hi)


def after_outcomes(outcomes: Iterable[bool], rules: ConfidenceRules, start: float | None = None) -> float:
    """Confidence of a new edge after a sequence of outcomes."""
    confidence = rules.initial if start is None else start
    for success in outcomes:
        confidence = after_outcome(confidence, success, rules)
    return confidence


def propagated(confidence: float, similarity: float, rules: ConfidenceRules) -> float:
    """A neighbour's confidence after a success of the same fix on a similar error."""
    return clamp(confidence + rules.rate * rules.boost * similarity, rules.lo, rules.hi)


def beta_mean(successes: int, failures: int) -> float:
    """Posterior mean of the fix's success rate under a Beta(1, 1) prior."""
    return (1 + successes) / (2 + successes + failures)


def is_auto_apply(confidence: float, threshold: float) -> bool:
    return confidence + _EPS >= threshold


def never_worked(row: Mapping[str, Any]) -> bool:
    """True for an error→fix edge with failures and no success (a user's correction excepted:
    a person's word is not withdrawn by the agent's failed attempt)."""
    return (
        int(row.get("successes") or 0) == 0
        and int(row.get("failures") or 0) >= 1
        and (row.get("source") or "observed") != "user"
    )


def failed_fixes(direct: Iterable[Mapping[str, Any]]) -> tuple[FailedFix, ...]:
    """The error's own fixes that failed on it and never worked on it, most recent first."""
    out = [
        FailedFix(
            fix_id=row["fix_id"],
            description=row["description"],
            failures=int(row["failures"]),
            last_used=row.get("last_used"),
        )
        for row in direct
        if never_worked(row)
    ]
    return tuple(sorted(out, key=lambda f: f.last_used or "", reverse=True))


def rank_fixes(
    direct: Iterable[Mapping[str, Any]], similar: Iterable[Mapping[str, Any]], auto_apply: float
) -> tuple[FixSuggestion, ...]:
    """Suggestions for an error: user corrections first, then direct fixes by confidence,
    then fixes of similar errors by attenuated confidence (a fix appears once).

    A fix that failed on this error and never worked on it (:func:`never_worked`) is left
    out, borrowed copies included; so is a neighbour's fix that never worked on the neighbour.

    A borrowed fix is ``auto_apply`` only when its row says the link is an ``identity`` (the two
    errors provably the same, :func:`kgmem.learning.identity.link_proof`); a high match score alone
    never acts on the agent's behalf. Over an identity link the fix keeps its confidence (one error:
    nothing to attenuate); a fix the error also has directly is offered as the borrowed copy only when
    that copy may act and the own one may not, and never once it failed here (the error's own failures
    speak first).
    """
    out: dict[str, FixSuggestion] = {}
    seen: set[str] = set()
    for row in direct:
        if never_worked(row):
            seen.add(row["fix_id"])  # and not borrowed back through a neighbour either
            continue
        conf = float(row["confidence"])
        out[row["fix_id"]] = FixSuggestion(
            fix_id=row["fix_id"],
            description=row["description"],
            confidence=conf,
            base_confidence=conf,
            source=row.get("source") or "observed",
            kind="direct",
            auto_apply=is_auto_apply(conf, auto_apply),
            successes=int(row.get("successes") or 0),
            failures=int(row.get("failures") or 0),
        )
        seen.add(row["fix_id"])
    borrowed: dict[str, FixSuggestion] = {}
    for row in similar:
        if never_worked(row):
            continue
        base, sim = float(row["confidence"]), float(row["similarity"])
        identity = bool(row.get("identity"))  # absent (an older row shape): not proven, suggest only
        conf = base if identity else base * sim
        own = out.get(row["fix_id"])
        # The error's own copy of a fix stands unless only the copy over an identity link may act (the own
        # success just reported, 0.6; the user's correction it was proven one with, 1.0) and it never failed here.
        if row["fix_id"] in seen and not (
            identity
            and own is not None
            and own.failures == 0
            and not own.auto_apply
            and is_auto_apply(conf, auto_apply)
        ):
            continue
        best = borrowed.get(row["fix_id"])
        # Of two links lending one fix, the stronger evidence wins: an identity first, then confidence.
        if best is None or (identity, conf) > (best.identity, best.confidence):
            borrowed[row["fix_id"]] = FixSuggestion(
                fix_id=row["fix_id"],
                description=row["description"],
                confidence=conf,
                base_confidence=base,
                source=row.get("source") or "observed",
                kind="similar",
                auto_apply=identity and is_auto_apply(conf, auto_apply),
                similarity=sim,
                via_error_id=row.get("via"),
                successes=int(row.get("successes") or 0),
                failures=int(row.get("failures") or 0),
                identity=identity,
                match_score=sim,
                borrowed_from=row.get("via"),
                proof=row.get("proof") if identity else None,
            )
    for fix_id in borrowed.keys() & out.keys():  # the error's own fix, stronger over an identity link
        del out[fix_id]

    def key(f: FixSuggestion) -> tuple[int, int, float]:
        return (_SOURCE_RANK.get(f.source, 1), 0 if f.kind == "direct" else 1, -f.confidence)

    return tuple(sorted(out.values(), key=key)) + tuple(sorted(borrowed.values(), key=key))

"""Feedback levels and their signals (docs/retrieval.md "Feedback"; the BQAR seed's levels)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from kgmem.errors import ValidationError

#: Signal strength per outcome. Items a query returned but the caller did not use get NOT_USED.
LEVELS: dict[str, float] = {
    "included": 0.2,  # put into the agent's context
    "referenced": 0.5,  # the agent cited / relied on it
    "success": 0.8,  # the response built on it succeeded
    "positive": 1.0,  # explicit thumbs up
    "negative": -1.0,  # explicit thumbs down
}
NOT_USED = -0.1


@dataclass(frozen=True)
class Update:
    """One posterior change: ``delta > 0`` adds to alpha, ``delta < 0`` to beta."""

    id: str
    kind: str
    delta: float


def signal(outcome: str | float) -> float:
    """The signal of a named level, or an explicit number in [-1, 1]."""
    if isinstance(outcome, (int, float)) and not isinstance(outcome, bool):
        if not -1.0 <= float(outcome) <= 1.0 or float(outcome) == 0.0:
            raise ValidationError(f"outcome: a number must be in [-1, 1] and non-zero, got {outcome}")
        return float(outcome)
    try:
        return LEVELS[outcome]  # type: ignore[index]
    except (KeyError, TypeError):
        raise ValidationError(
            f"outcome: unknown level {outcome!r}; choose one of {', '.join(LEVELS)} or a number"
        ) from None


def updates(retrieved: Sequence[tuple[str, str]], used: Iterable[str], outcome: str | float) -> list[Update]:
    """Used items get the outcome's signal; retrieved-but-unused items get :data:`NOT_USED`.

    Args:
        retrieved: (id, kind) of every hit the query returned, in rank order.
        used: the ids the caller used (must be among ``retrieved``).
        outcome: a level name from :data:`LEVELS` or a number in [-1, 1].
    """
    strength = signal(outcome)
    used_ids = list(dict.fromkeys(used))
    kinds = dict(retrieved)
    unknown = [u for u in used_ids if u not in kinds]
    if unknown:
        raise ValidationError(f"used: {', '.join(unknown)} not among this query's hits")
    used_set = set(used_ids)
    out = [Update(i, kinds[i], strength) for i in used_ids]
    out += [Update(i, k, NOT_USED) for i, k in retrieved if i not in used_set]
    return out

"""BQAR math (seed 001): session overlays, three-way merge, conversation-shift detection,
Thompson sampling and causal attribution. Pure — no I/O; tests/unit/retrieval/test_bqar.py.

Usage posteriors are Beta(α, β) per item. A session does not write the global (α, β) while it
runs: its feedback goes to a per-session *overlay* of deltas (copy-on-write; the global value the
session first saw is kept as the *base*), and searches in that session rank by global + overlay.
At session end the overlay is merged back three-way (seed §11):

    ours   = session − base          (what this session learned)
    theirs = current − base          (what other sessions merged meanwhile)
    merged = base + ours + theirs = current + ours

For Beta counts the additive merge *is* the evidence-weighted resolution the seed asks for on a
conflict (opposite directions): every observation of every session is kept, so the side with more
evidence moves the mean more. Conflicts are still detected and reported. Because the merge only
ever adds ``ours`` to whatever is current, merges of several sessions commute: the graph applies
``current + ours`` under the node's write lock, so concurrent merges lose nothing.

Conversation shift (seed §10): the session keeps a moving centroid of its query embeddings; a
query farther than ``threshold`` (cosine distance) from it, after ``min_queries`` queries, is a
shift, and the overlay's *view* (what ranks this session's searches) is damped by ``damping``
(0 = reset). The full deltas are still merged at session end: the evidence was real, it is only
no longer about what the conversation is doing now.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from kgmem.errors import ValidationError
from kgmem.retrieval.feedback import LEVELS, NOT_USED, Update, signal


# -- Beta counts and the three-way merge ----------------------------------------------------------
@dataclass(frozen=True)
class Beta:
    """Beta(α, β) pseudo-counts of one item's usage posterior."""

    alpha: float
    beta: float

    @property
    def mean(self) -> float:
        return self.alpha / (self.alpha + self.beta)

    def __sub__(self, other: Beta) -> Beta:
        return Beta(self.alpha - other.alpha, self.beta - other.beta)

    def __add__(self, other: Beta) -> Beta:
        return Beta(self.alpha + other.alpha, self.beta + other.beta)


@dataclass(frozen=True)
class Merge:
    """A merged posterior and whether the two sides pulled in opposite directions."""

    merged: Beta
    ours: Beta
    theirs: Beta
    conflict: bool


def direction(delta: Beta, eps: float = 1e-12) -> int:
    """+1 when a delta adds more success than failure evidence, −1 the other way, 0 when balanced."""
    d = delta.alpha - delta.beta
    return 0 if abs(d) <= eps else (1 if d > 0 else -1)


def three_way_merge(base: Beta, session: Beta, current: Beta) -> Merge:
    """Merge a session's posterior (forked from ``base``) into the ``current`` global one."""
    ours, theirs = session - base, current - base
    merged = base + ours + theirs
    conflict = direction(ours) != 0 and direction(theirs) != 0 and direction(ours) != direction(theirs)
    return Merge(merged=merged, ours=ours, theirs=theirs, conflict=conflict)


def apply_signal(delta: Beta, strength: float) -> Beta:
    """One feedback signal added to an overlay delta: positive → α, negative → β (its magnitude)."""
    return Beta(delta.alpha + max(strength, 0.0), delta.beta + max(-strength, 0.0))


def effective(global_: Beta | None, view: Beta | None, prior: Beta) -> Beta:
    """What a session's search ranks by: the global posterior (or the prior) plus the session's view."""
    g = global_ or prior
    return g if view is None else g + view


# -- conversation-shift detection -------------------------------------------------------------------
@dataclass(frozen=True)
class ShiftState:
    """A session's moving centroid of query embeddings (unit vectors) and how many queries built it."""

    centroid: tuple[float, ...] = ()
    n: int = 0
    shifts: int = 0


@dataclass(frozen=True)
class Shift:
    """The verdict on one query: its cosine distance to the centroid and whether it is a shift."""

    is_shift: bool
    distance: float
    state: ShiftState = field(default_factory=ShiftState)


def observe(
    state: ShiftState, vector: Sequence[float], threshold: float = 0.6, window: int = 5, min_queries: int = 2
) -> Shift:
    """Compare ``vector`` with the session's centroid, then fold it in.

    The centroid is an exponential moving mean with weight ``1 / min(n + 1, window)`` for the new
    query (a plain mean for the first ``window`` queries). On a shift the centroid restarts at the new
    query: the conversation is now about that.
    """
    if not 0.0 < threshold <= 2.0 or window < 1 or min_queries < 1:
        raise ValidationError("shift: threshold must be in (0, 2], window and min_queries >= 1")
    v = np.asarray(vector, dtype=np.float64)
    norm = np.linalg.norm(v)
    if norm == 0:
        return Shift(False, 0.0, state)
    v = v / norm
    if state.n == 0 or not state.centroid:
        return Shift(False, 0.0, ShiftState(tuple(v.tolist()), 1, state.shifts))
    c = np.asarray(state.centroid, dtype=np.float64)
    cn = np.linalg.norm(c)
    distance = float(1.0 - (c @ v) / cn) if cn > 0 else 1.0
    if state.n >= min_queries and distance > threshold:
        return Shift(True, distance, ShiftState(tuple(v.tolist()), 1, state.shifts + 1))
    w = 1.0 / min(state.n + 1, window)
    centroid = (1.0 - w) * c + w * v
    return Shift(False, distance, ShiftState(tuple(centroid.tolist()), state.n + 1, state.shifts))


# -- Thompson sampling ------------------------------------------------------------------------------
def sample_posterior(rng: np.random.Generator, alpha: float, beta: float) -> float:
    """One draw from Beta(α, β) (exploration); the caller's seeded generator makes it reproducible."""
    return float(rng.beta(max(alpha, 1e-9), max(beta, 1e-9)))


# -- causal attribution -----------------------------------------------------------------------------
_CITATION = re.compile(r"\[(\d{1,4})\]")


def cited_numbers(response: str) -> list[int]:
    """The citation numbers ``[n]`` a response uses, in order of first use."""
    return list(dict.fromkeys(int(m) for m in _CITATION.findall(response or "")))


def attribute(
    retrieved: Sequence[tuple[str, str]],
    included: Sequence[str],
    cited: Iterable[str],
    outcome: str | float,
) -> list[Update]:
    """Attribute an outcome to the hits the response actually cited (seed §5, levels 0–4).

    * cited hits get the outcome's signal (they caused it, for better or worse);
    * hits put into the context but not cited get ``included`` (+0.2): presented, not relied on;
    * hits retrieved but not put into the context get :data:`~kgmem.retrieval.feedback.NOT_USED`.

    Args:
        retrieved: (id, kind) of every hit of the query, in rank order.
        included: ids rendered into the context (``Context.citations``), in citation order.
        cited: ids the response cited (must be among ``retrieved``).
        outcome: a level name or a number in [−1, 1].
    """
    strength = signal(outcome)
    kinds = dict(retrieved)
    cited_ids = list(dict.fromkeys(cited))
    unknown = [c for c in cited_ids if c not in kinds]
    if unknown:
        raise ValidationError(f"used: {', '.join(unknown)} not among this query's hits")
    cited_set, included_set = set(cited_ids), set(included)
    out = [Update(i, kinds[i], strength) for i in cited_ids]
    out += [Update(i, k, LEVELS["included"]) for i, k in retrieved if i in included_set and i not in cited_set]
    out += [Update(i, k, NOT_USED) for i, k in retrieved if i not in included_set and i not in cited_set]
    return out


def citations_to_ids(numbers: Iterable[int], included: Sequence[str]) -> list[str]:
    """Map citation numbers (1-based, as rendered by ``context()``) to hit ids; out-of-range → error."""
    out = []
    for n in numbers:
        if not 1 <= n <= len(included):
            raise ValidationError(f"response: cites [{n}] but the context had {len(included)} citations")
        out.append(included[n - 1])
    return out

"""The concept hop: from strong seeds, through the concepts they MENTION, to other memories.

Pure weighting (no I/O; unit-tested in tests/unit/retrieval/test_concept_hop.py). The read is
``cypher/retrieval/concept_hop.cypher`` (one round trip); :class:`kgmem.retrieval.graph.GraphRAGRetriever`
wires the two together when ``SearchConfig.concept_hop`` is on.

* **Seeds** (:func:`pick_seeds`): the best ``concept_seeds`` fused candidates, plus, for every concept
  the question names, the best candidate of the first ``concept_seed_pool`` whose text names it — so a
  question about two people expands from each person's best turn, not twice from the first one's.
* **Specificity** (:func:`specificity`): a shared concept counts ``df ** -alpha`` (HippoRAG damps a
  phrase by the number of passages that contain it; alpha 1 is its ``1/df``); a concept more than
  ``max_df`` memories mention (a speaker's name that every turn carries) counts nothing, and the read
  never walks it, which also bounds the fan-out.
* **Neighbour score** (:func:`neighbour_scores`): Σ over the seeds that reach it of the seed's fused
  score × :func:`seed_share` (the seed's score split over the walkable concepts it mentions, damped by
  ``seed_damping``) × :func:`shared_weight` (the shared concepts' specificities, × ``query_boost`` for
  a concept the question names, summed up to ``cap`` and to ``best_multiple`` × the most specific one)
  × ``weight``. A neighbour reached from two seeds (the bridge of a multi-hop question) adds both.
* **Slots**: the neighbours then compete for positions of the ranking they enter through
  :func:`kgmem.retrieval.slots.interleave` (the traversal's neighbours use it too), which never
  reorders that ranking, never places a neighbour before ``slot_start`` nor ahead of a strong direct
  hit (one scoring at least ``floor ×`` the first).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from kgmem.concepts import normalise_key


@dataclass(frozen=True)
class Shared:
    """A concept a seed and a neighbour both mention: its key and how many memories mention it."""

    key: str
    df: int


@dataclass(frozen=True)
class Neighbour:
    """A memory reached through shared concepts: its score and the (seed id, concept key) that led there
    (the strongest first)."""

    id: str
    score: float
    via: tuple[tuple[str, str], ...]


def specificity(df: int, alpha: float, max_df: int) -> float:
    """How much one shared concept says: ``df ** -alpha``; 0 when more than ``max_df`` memories (or fewer
    than two: nothing to share) mention it."""
    if alpha < 0 or max_df < 0:
        raise ValueError("specificity: alpha and max_df must be >= 0")
    if df < 2 or df > max_df:
        return 0.0
    return float(df) ** -alpha


def seed_share(degree: int, damping: float) -> float:
    """The share of a seed's score that flows through each concept it shares: ``degree ** -damping``, where
    ``degree`` is how many walkable concepts the seed mentions (a random walk splits a node's mass over
    its edges; damping 1 is that split, 0 gives every concept the seed's full score).

    A long reply mentioning thirty concepts then passes on little through each one, so the ordinary
    phrases it shares once or twice with other long replies of a 500-turn chat do not push direct hits
    out; a short turn naming two things passes on most of its score. A degree below 1 counts as 1.
    """
    if damping < 0:
        raise ValueError("seed_share: damping must be >= 0")
    return float(max(degree, 1)) ** -damping


def _mentions(key: str) -> re.Pattern[str]:
    # A key names a text when its words start words of the normalised text: "painting" finds
    # "paintings", "support group" finds "support groups" (keys are lemmatised, texts are not).
    words = [re.escape(w) for w in key.split()]
    return re.compile(r"\b" + r"\w*\s+".join(words))


def pick_seeds(ranked: Sequence[tuple[str, float, str]], keys: Sequence[str], top: int, pool: int) -> dict[str, float]:
    """The seeds of the hop and their scores.

    Args:
        ranked: ``(id, fused score, text)`` of the fused candidates, best first.
        keys: the question's concept keys (:meth:`kgmem.concepts.ConceptExtractor.extract`).
        top: the first ``top`` candidates are seeds whatever they mention.
        pool: for each key, the best of the first ``pool`` candidates whose text names it is a seed too.
    Returns ``{id: fused score}``, best first.
    """
    if top < 0 or pool < 0:
        raise ValueError("pick_seeds: top and pool must be >= 0")
    seeds: dict[str, float] = {item_id: score for item_id, score, _ in ranked[:top]}
    head = [(item_id, score, normalise_key(text)) for item_id, score, text in ranked[:pool]]
    for key in dict.fromkeys(k for k in keys if k):
        pattern = _mentions(key)
        for item_id, score, text in head:
            if pattern.search(text):
                seeds.setdefault(item_id, score)
                break
    return dict(sorted(seeds.items(), key=lambda kv: -kv[1]))


def shared_weight(specificities: Sequence[float], cap: float, best_multiple: float = math.inf) -> float:
    """What the concepts one seed shares with one neighbour add up to: their sum, at most ``cap`` and at
    most ``best_multiple`` × the most specific one.

    The second bound tells a few rare concepts from many mid-frequency ones: two shared names of df 2
    (0.5 + 0.5) keep their sum under ``best_multiple`` 2, while a long reply sharing fifteen words of
    df 10 with a long seed (15 × 0.1) counts 0.2, not the full ``cap``.
    """
    if cap <= 0 or best_multiple < 1:
        raise ValueError("shared_weight: cap must be > 0 and best_multiple >= 1")
    if not specificities:
        return 0.0
    return min(cap, math.fsum(specificities), best_multiple * max(specificities))


def neighbour_scores(
    reached: Iterable[tuple[str, str, Sequence[Shared]]],
    seeds: Mapping[str, float],
    question_keys: Iterable[str] = (),
    *,
    alpha: float = 1.0,
    max_df: int = 50,
    query_boost: float = 1.0,
    cap: float = 1.0,
    best_multiple: float = math.inf,
    weight: float = 1.0,
    degrees: Mapping[str, int] | None = None,
    seed_damping: float = 0.0,
) -> list[Neighbour]:
    """Score every neighbour the read returned.

    Args:
        reached: ``(seed id, neighbour id, concepts they share)`` rows.
        seeds: each seed's fused score (:func:`pick_seeds`).
        question_keys: concepts the question names (× ``query_boost`` when shared).
        alpha, max_df: :func:`specificity`.
        cap: the most one seed's shared concepts can add up to (a long turn sharing many mid-frequency
            words with the seed is not a better neighbour than one sharing a rare name).
        best_multiple: one seed's shared concepts add up to at most this × the most specific of them
            (:func:`shared_weight`; ``inf``: only ``cap`` bounds the sum).
        weight: scales every neighbour score against the direct hits' fused scores.
        degrees: each seed's number of walkable concepts (missing: 1); with ``seed_damping`` a seed passes on
            :func:`seed_share` of its score through each concept.
    Returns the neighbours with a score above 0, best first (ties by id, so the order is stable).
    """
    if cap <= 0 or best_multiple < 1 or weight < 0 or query_boost < 0 or seed_damping < 0:
        raise ValueError(
            "neighbour_scores: cap must be > 0, best_multiple >= 1, weight, query_boost and seed_damping >= 0"
        )
    degrees = degrees or {}
    asked = set(question_keys)
    total: dict[str, float] = {}
    via: dict[str, list[tuple[float, str, str]]] = {}
    for seed_id, item_id, shared in reached:
        if item_id == seed_id:
            continue
        specs = [(specificity(c.df, alpha, max_df) * (query_boost if c.key in asked else 1.0), c.key) for c in shared]
        best = max(specs, default=(0.0, ""))
        share = seed_share(degrees.get(seed_id, 1), seed_damping)
        contribution = (
            weight * seeds.get(seed_id, 0.0) * share * shared_weight([s for s, _ in specs], cap, best_multiple)
        )
        if contribution <= 0:
            continue
        total[item_id] = total.get(item_id, 0.0) + contribution
        via.setdefault(item_id, []).append((contribution, seed_id, best[1]))
    ranked = sorted(total.items(), key=lambda kv: (-kv[1], kv[0]))
    return [Neighbour(i, s, tuple((seed, key) for _, seed, key in sorted(via[i], reverse=True))) for i, s in ranked]

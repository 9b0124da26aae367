"""Strategies over the legs without traversal: one leg alone, or every leg fused by weighted RRF.

Both take their legs from the registry (:mod:`kgmem.retrieval.legs`) and never name one.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from typing import Any

from kgmem.retrieval import fusion
from kgmem.retrieval.config import SearchConfig
from kgmem.retrieval.legs import RetrievalLeg
from kgmem.retrieval.scope import Scope
from kgmem.retrieval.timing import lap, start
from kgmem.retrieval.types import Candidate, Provenance, SearchHit
from kgmem.retrieval.validity import valid_hits
from kgmem.runner import Gather, Op

log = logging.getLogger(__name__)

#: Candidate properties surfaced as a hit's metadata.
_META_KEYS = ("role", "tool", "type", "confidence", "seq", "valid_from", "valid_until")


class SingleLegRetriever:
    """One leg alone (e.g. the ``vector`` or ``keyword`` strategy): the leg's own score is the score."""

    def __init__(self, leg: RetrievalLeg) -> None:
        self.leg = leg
        self.last_timings: dict[str, float] = {}

    def search(self, query: str, scope: Scope) -> Op[list[SearchHit]]:
        """The ``scope.k`` best candidates of the leg valid at the scope's time (an operation: see kgmem.runner)."""
        t0 = time.perf_counter()
        cands = yield from self.leg.candidates(query, scope)
        self.last_timings = {"legs_ms": (time.perf_counter() - t0) * 1000}
        hits = yield from valid_hits([candidate_hit(c, self.leg.name) for c in cands], scope)
        return hits[: scope.k]


class HybridRetriever:
    """Every leg, fused (no traversal, no quality adjustment).

    Args:
        legs: the legs of this search (already filtered by the config), in registry order.
        weights: RRF weight per leg name (and ``graph`` for the traversal, used by Graph RAG).
        config: the search config (``rrf_k``, ``agreement_bonus``).
    """

    def __init__(self, legs: Sequence[RetrievalLeg], weights: Mapping[str, float], config: SearchConfig) -> None:
        self.legs = tuple(legs)
        self.weights = dict(weights)
        self.config = config
        self.last_timings: dict[str, float] = {}

    def search(self, query: str, scope: Scope) -> Op[list[SearchHit]]:
        """The ``scope.k`` best items by fused score valid at the scope's time (an operation: see kgmem.runner)."""
        legs = yield from self.candidates(query, scope)
        fused = self.fuse(legs, scope)
        t0 = start(scope)
        hits = [fused_hit(f, f.score, dict(f.breakdown), {}) for f in fused]
        lap(scope, "rank", t0)
        # Without the traversal nothing else checks the vector leg's hits against the time scope.
        hits = yield from valid_hits(hits, scope)
        return hits[: scope.k]

    def candidates(self, query: str, scope: Scope) -> Op[dict[str, list[Candidate]]]:
        """Every leg's candidates, gathered concurrently: e.g. the keyword leg's Neo4j round trip
        overlaps the query embedding and the Chroma query (a thread under KGMem, a task under AsyncKGMem)."""
        t0 = time.perf_counter_ns()
        results = yield Gather(tuple(leg.candidates(query, scope) for leg in self.legs))
        lap(scope, "legs", t0)
        self.last_timings = {"legs_ms": (time.perf_counter_ns() - t0) / 1e6}
        return {leg.name: cands for leg, cands in zip(self.legs, results)}

    def fuse(self, legs: dict[str, list[Candidate]], scope: Scope) -> list[fusion.Fused]:
        """Weighted RRF of the legs' candidates (timed as ``fusion`` when ``scope`` carries a clock)."""
        t0 = start(scope)
        cfg = self.config
        fused = fusion.fuse(legs, self.weights, cfg.rrf_k, cfg.agreement_bonus)
        lap(scope, "fusion", t0)
        return fused


def candidate_hit(c: Candidate, leg: str) -> SearchHit:
    """A single-leg candidate as a hit (the leg's own score is the score)."""
    meta = {k: v for k, v in c.props.items() if k not in ("ref", "session", "ts")}
    return SearchHit(
        id=c.id,
        kind=c.kind,
        text=c.text,
        score=c.score,
        breakdown={leg: c.score},
        provenance=Provenance(legs=(leg,), path=c.path),
        ref=c.props.get("ref"),
        session=c.props.get("session"),
        ts=iso(c.props.get("ts")),
        metadata=meta,
    )


def fused_hit(f: fusion.Fused, score: float, breakdown: dict[str, float], props: dict[str, Any]) -> SearchHit:
    """Build the public hit from a fused item; graph-store ``props`` (if any) win over leg metadata.
    Each leg's raw figures (``Candidate.explain``: distance, bm25 …) join the breakdown."""
    merged: dict[str, Any] = {}
    text = ""
    for cand in f.by_leg.values():
        merged.update({k: v for k, v in cand.props.items() if v is not None})
        text = text or cand.text
        for key, value in cand.explain.items():
            breakdown.setdefault(key, value)
    merged.update({k: v for k, v in props.items() if v is not None})
    text = props.get("text") or text
    path = f.by_leg["graph"].path if "graph" in f.by_leg else ()
    meta = {k: v for k, v in merged.items() if k in _META_KEYS}
    return SearchHit(
        id=f.id,
        kind=f.kind,
        text=text,
        score=score,
        breakdown=breakdown,
        provenance=Provenance(legs=f.legs, path=path),
        ref=merged.get("ref"),
        session=merged.get("session"),
        ts=iso(merged.get("ts")),
        metadata=meta,
    )


def iso(value: Any) -> str | None:
    """A timestamp property (str or neo4j DateTime) as ISO-8601 text."""
    if value is None or isinstance(value, str):
        return value
    return value.isoformat() if hasattr(value, "isoformat") else str(value)

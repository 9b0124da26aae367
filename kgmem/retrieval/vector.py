"""The vector leg: nearest neighbours of the query embedding in Chroma (docs/design.md §6.2).

One collection per (namespace, kind), so namespace and kind scope cost nothing.
Session scope is a post-filter on the over-fetched hits (Chroma ``where`` filters
were ~20× slower at 100 K vectors); only when too few in-session hits survive is
the collection asked again with a ``where`` filter.
"""

from __future__ import annotations

import logging

import numpy as np

from kgmem.retrieval.config import SearchConfig
from kgmem.retrieval.scope import Scope
from kgmem.retrieval.types import Candidate, Provenance, SearchHit
from kgmem.runner import EmbedQuery, Op, VectorQuery
from kgmem.vectors import VectorHit

log = logging.getLogger(__name__)


class VectorRetriever:
    """Dense retrieval only (the ``vector`` strategy, and the vector leg of the others)."""

    leg = "vector"

    def __init__(self, config: SearchConfig) -> None:
        self.config = config

    def search(self, query: str, scope: Scope) -> Op[list[SearchHit]]:
        """The ``scope.k`` nearest items within the distance threshold (an operation: see kgmem.runner)."""
        cands = yield from self.candidates(query, scope)
        return [candidate_hit(c, self.leg) for c in cands[: scope.k]]

    def candidates(self, query: str, scope: Scope, vector: np.ndarray | None = None) -> Op[list[Candidate]]:
        """Up to ``k × overfetch`` candidates over all kinds in scope, nearest first."""
        if vector is None:
            vector = yield EmbedQuery(query)
        n = scope.k * self.config.overfetch
        hits: list[tuple[VectorHit, str]] = []
        for kind in scope.kinds:
            found = yield from self._query_kind(scope, kind, vector, n)
            hits.extend((h, kind) for h in found)
        hits.sort(key=lambda hk: hk[0].distance)
        return [
            Candidate(id=h.id, kind=kind, rank=i, score=h.similarity, text=h.document or "",
                      props={**h.metadata, "distance": h.distance})
            for i, (h, kind) in enumerate(hits[:n], start=1)
        ]

    def _query_kind(self, scope: Scope, kind: str, vector: np.ndarray, n: int) -> Op[list[VectorHit]]:
        hits = yield VectorQuery(scope.ns, kind, vector, n)
        if scope.session is not None and kind == "message":
            in_session = [h for h in hits if h.metadata.get("session") == scope.session]
            if len(in_session) < n and len(hits) == n:  # the session's turns may lie deeper: ask Chroma to filter
                in_session = yield VectorQuery(scope.ns, kind, vector, n, where={"session": scope.session})
            hits = in_session
        return [h for h in hits if h.distance <= self.config.max_distance]



def candidate_hit(c: Candidate, leg: str) -> SearchHit:
    """A single-leg candidate as a hit (the leg's own score is the score)."""
    meta = {k: v for k, v in c.props.items() if k not in ("ref", "session", "ts")}
    return SearchHit(
        id=c.id, kind=c.kind, text=c.text, score=c.score, breakdown={leg: c.score},
        provenance=Provenance(legs=(leg,), path=c.path),
        ref=c.props.get("ref"), session=c.props.get("session"), ts=_iso(c.props.get("ts")), metadata=meta,
    )


def _iso(value) -> str | None:  # noqa: ANN001 - str or neo4j DateTime
    if value is None or isinstance(value, str):
        return value
    return value.isoformat() if hasattr(value, "isoformat") else str(value)

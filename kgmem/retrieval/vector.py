"""The vector leg: nearest neighbours of the query embedding in Chroma.

One collection per (namespace, kind), so namespace and kind scope cost nothing.
Session scope is a post-filter on the over-fetched hits (Chroma ``where`` filters
were ~20× slower at 100 K vectors); only when too few in-session hits survive is
the collection asked again with a ``where`` filter.

Without ``scope.payload`` (Graph RAG, which re-reads every candidate it keeps from Neo4j) Chroma is
asked for ids and distances only: its documents and metadata are most of a query's cost.
"""

from __future__ import annotations

import logging

import numpy as np

from kgmem.retrieval.config import SearchConfig
from kgmem.retrieval.scope import Scope
from kgmem.retrieval.timing import lap, start
from kgmem.retrieval.types import Candidate
from kgmem.runner import EmbedQuery, Op, VectorQuery
from kgmem.vectors import VectorHit

log = logging.getLogger(__name__)


class VectorRetriever:
    """The vector leg (a :class:`~kgmem.retrieval.legs.RetrievalLeg`): dense retrieval over Chroma."""

    name = "vector"

    def __init__(self, config: SearchConfig) -> None:
        self.config = config

    def candidates(self, query: str, scope: Scope) -> Op[list[Candidate]]:
        """Up to ``k × overfetch`` candidates over all kinds in scope, nearest first (an operation:
        see kgmem.runner)."""
        t0 = start(scope)
        vector = yield EmbedQuery(query)
        lap(scope, "embed", t0)
        t0 = start(scope)
        n = scope.k * self.config.overfetch
        hits: list[tuple[VectorHit, str]] = []
        for kind in scope.kinds:
            found = yield from self._query_kind(scope, kind, vector, n)
            hits.extend((h, kind) for h in found)
        lap(scope, "vector", t0)
        hits.sort(key=lambda hk: hk[0].distance)
        return [
            Candidate(
                id=h.id,
                kind=kind,
                rank=i,
                score=h.similarity,
                text=h.document or "",
                props={**h.metadata, "distance": h.distance},
                explain={"distance": h.distance},
            )
            for i, (h, kind) in enumerate(hits[:n], start=1)
        ]

    def _query_kind(self, scope: Scope, kind: str, vector: np.ndarray, n: int) -> Op[list[VectorHit]]:
        by_session = scope.session is not None and kind == "message"  # the post-filter reads the metadata
        hits = yield VectorQuery(scope.ns, kind, vector, n, payload=scope.payload or by_session)
        if by_session:
            in_session = [h for h in hits if h.metadata.get("session") == scope.session]
            if len(in_session) < n and len(hits) == n:  # the session's turns may lie deeper: ask Chroma to filter
                in_session = yield VectorQuery(scope.ns, kind, vector, n, where={"session": scope.session})
            hits = in_session
        return [h for h in hits if h.distance <= self.config.max_distance]

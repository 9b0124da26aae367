"""The hybrid strategy: vector and keyword legs run concurrently, fused by weighted RRF."""

from __future__ import annotations

import logging
import time
from typing import Any

from kgmem.retrieval import fusion
from kgmem.retrieval.config import SearchConfig
from kgmem.retrieval.keyword import KeywordRetriever
from kgmem.retrieval.scope import Scope
from kgmem.retrieval.types import Candidate, Provenance, SearchHit
from kgmem.retrieval.vector import VectorRetriever, _iso
from kgmem.runner import Gather, Op

log = logging.getLogger(__name__)


class HybridRetriever:
    """Vector + keyword, fused (no traversal, no quality adjustment)."""

    def __init__(self, vector: VectorRetriever, keyword: KeywordRetriever, config: SearchConfig) -> None:
        self.vector = vector
        self.keyword = keyword
        self.config = config
        self.last_timings: dict[str, float] = {}

    def search(self, query: str, scope: Scope) -> Op[list[SearchHit]]:
        """The ``scope.k`` best items by fused score (an operation: see kgmem.runner)."""
        legs = yield from self.legs(query, scope)
        fused = self.fuse(legs)
        return [fused_hit(f, f.score, dict(f.breakdown), {}) for f in fused[: scope.k]]

    def legs(self, query: str, scope: Scope) -> Op[dict[str, list[Candidate]]]:
        """Both legs' candidates, gathered concurrently: the keyword leg's Neo4j round trip overlaps
        the query embedding and the Chroma query (a thread under KGMem, a task under AsyncKGMem)."""
        cfg = self.config
        t0 = time.perf_counter()
        ops = []
        if cfg.use_vector:
            ops.append(self.vector.candidates(query, scope))
        if cfg.use_keyword:
            ops.append(self.keyword.candidates(query, scope))
        results = iter((yield Gather(tuple(ops))))
        vector_cands = next(results) if cfg.use_vector else []
        keyword_cands = next(results) if cfg.use_keyword else []
        self.last_timings = {"legs_ms": (time.perf_counter() - t0) * 1000}
        return {"vector": vector_cands, "keyword": keyword_cands}

    def fuse(self, legs: dict[str, list[Candidate]]) -> list[fusion.Fused]:
        cfg = self.config
        weights = {"vector": cfg.vector_weight, "keyword": cfg.keyword_weight, "graph": cfg.graph_weight}
        return fusion.fuse(legs, weights, cfg.rrf_k, cfg.agreement_bonus)


def fused_hit(f: fusion.Fused, score: float, breakdown: dict[str, float], props: dict[str, Any]) -> SearchHit:
    """Build the public hit from a fused item; graph-store ``props`` (if any) win over leg metadata."""
    merged: dict[str, Any] = {}
    text = ""
    for cand in f.by_leg.values():
        merged.update({k: v for k, v in cand.props.items() if v is not None})
        text = text or cand.text
    merged.update({k: v for k, v in props.items() if v is not None})
    text = props.get("text") or text
    if "vector" in f.by_leg:
        breakdown.setdefault("distance", float(f.by_leg["vector"].props.get("distance", 1 - f.by_leg["vector"].score)))
    if "keyword" in f.by_leg:
        breakdown.setdefault("bm25", f.by_leg["keyword"].score)
    path = f.by_leg["graph"].path if "graph" in f.by_leg else ()
    meta = {k: v for k, v in merged.items() if k in ("role", "tool", "type", "confidence", "seq")}
    return SearchHit(
        id=f.id, kind=f.kind, text=text, score=score, breakdown=breakdown,
        provenance=Provenance(legs=f.legs, path=path),
        ref=merged.get("ref"), session=merged.get("session"), ts=_iso(merged.get("ts")), metadata=meta,
    )

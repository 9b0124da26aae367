"""The Graph RAG strategy (docs/design.md §6): both legs → one traversal from their seeds →
fusion of three legs → quality adjustment."""

from __future__ import annotations

import logging
import time
from datetime import datetime, timezone
from typing import Any

from kgmem.graph import GraphStore
from kgmem.retrieval import fusion
from kgmem.retrieval.config import KIND_LABELS, SearchConfig
from kgmem.retrieval.hybrid import HybridRetriever, fused_hit
from kgmem.retrieval.keyword import LABEL_KINDS
from kgmem.retrieval.scope import Scope
from kgmem.retrieval.types import Candidate, SearchHit

log = logging.getLogger(__name__)

_PROP_KEYS = ("text", "ref", "session", "ts", "role", "confidence", "alpha", "beta", "updated_at", "last_used")


class GraphRAGRetriever:
    """Hybrid candidates, expanded through the graph and re-ranked by learned quality."""

    def __init__(self, hybrid: HybridRetriever, graph: GraphStore, config: SearchConfig) -> None:
        self.hybrid = hybrid
        self.graph = graph
        self.config = config
        self.last_timings: dict[str, float] = {}

    def search(self, query: str, scope: Scope) -> list[SearchHit]:
        """The ``scope.k`` best items after expansion, fusion and quality adjustment."""
        cfg = self.config
        legs = self.hybrid.legs(query, scope)
        first = self.hybrid.fuse(legs)
        if not first:
            self.last_timings = dict(self.hybrid.last_timings)
            return []
        t0 = time.perf_counter()
        props, graph_cands = self._expand(first, scope)
        t1 = time.perf_counter()
        # Items the graph no longer has (a stale vector) or that were deactivated are dropped.
        legs = {leg: [c for c in cands if c.id in props] for leg, cands in legs.items()}
        legs = {leg: [_rerank(c, i) for i, c in enumerate(cands, start=1)] for leg, cands in legs.items()}
        fused = fusion.propagate(self.hybrid.fuse(legs), graph_cands, cfg.graph_weight)
        for c in graph_cands:
            props.setdefault(c.id, c.props)
        hits = self._rank(fused, props, scope.k)
        self.last_timings = {**self.hybrid.last_timings, "expand_ms": (t1 - t0) * 1000}
        return hits

    def _expand(self, fused: list[fusion.Fused], scope: Scope) -> tuple[dict[str, dict[str, Any]], list[Candidate]]:
        """One round trip: hydrate every candidate, expand the best ``expansion_seeds`` of them."""
        cfg = self.config
        hops = cfg.hops if cfg.use_graph else 0
        # Only the head of the first fusion can still reach the top k after the quality factors
        # (which span roughly ×0.3–×1.5), so only the head is hydrated: fewer index seeks per search.
        head = fused[: max(3 * scope.k, cfg.expansion_seeds)]
        seeds = [
            {"id": f.id, "label": KIND_LABELS[f.kind], "expand": i < cfg.expansion_seeds}
            for i, f in enumerate(head)
        ]
        rows = self.graph.read(
            "retrieval/expand", ns=scope.ns, seeds=seeds, hops=hops, decay=cfg.hop_decay,
            per_seed=cfg.expansion_per_seed, labels=scope.labels, session=scope.session,
        )
        seed_score = {f.id: f.score for f in fused}
        props: dict[str, dict[str, Any]] = {}
        best: dict[str, tuple[float, dict[str, Any], tuple[str, ...]]] = {}
        for row in rows:
            if not row["active"]:
                continue
            props[row["id"]] = {k: row[k] for k in _PROP_KEYS}
            for n in row["expanded"]:
                weight = seed_score[row["id"]] * n["weight"]
                if n["id"] not in best or weight > best[n["id"]][0]:
                    best[n["id"]] = (weight, n, _path(n))
        ranked = sorted(best.items(), key=lambda kv: -kv[1][0])
        graph_cands = [
            Candidate(id=nid, kind=LABEL_KINDS[n["label"]], rank=i, score=w, text=n["text"] or "",
                      props={k: n[k] for k in _PROP_KEYS}, path=path)
            for i, (nid, (w, n, path)) in enumerate(ranked, start=1)
        ]
        return props, graph_cands

    def _rank(self, fused: list[fusion.Fused], props: dict[str, dict[str, Any]], k: int) -> list[SearchHit]:
        cfg = self.config
        weights = fusion.QualityWeights(cfg.confidence_weight, cfg.usage_weight, cfg.staleness_weight,
                                        cfg.prior_alpha, cfg.prior_beta)
        now = datetime.now(timezone.utc)
        scored = []
        for f in fused:
            p = props.get(f.id, {})
            breakdown = dict(f.breakdown)
            breakdown["fused"] = f.score
            score = f.score
            if cfg.use_quality:
                factors = fusion.quality_factors(p, cfg.half_life_days.get(f.kind), weights, now)
                breakdown.update(factors)
                score = f.score * factors["quality"]
            scored.append((score, f, breakdown, p))
        scored.sort(key=lambda s: -s[0])  # stable: fused order breaks ties
        return [fused_hit(f, score, breakdown, p) for score, f, breakdown, p in scored[:k]]


def _rerank(c: Candidate, rank: int) -> Candidate:
    if c.rank == rank:
        return c
    return Candidate(c.id, c.kind, rank, c.score, c.text, c.props, c.path)


def _path(n: dict[str, Any]) -> tuple[str, ...]:
    """Interleave node ids and relationship types: ("<seed id>", "NEXT", "<id>", ...)."""
    out: list[str] = []
    for i, node in enumerate(n["path_ids"]):
        out.append(node)
        if i < len(n["path_rels"]):
            out.append(n["path_rels"][i])
    return tuple(out)

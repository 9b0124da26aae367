"""The Graph RAG strategy (docs/design.md §6): every leg → one traversal from their fused seeds →
fusion of the legs and the traversal → quality adjustment."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

import neo4j

from kgmem.concepts import concept_id, normalise_key
from kgmem.kinds import LABEL_KINDS
from kgmem.retrieval import concept_hop, fusion, slots
from kgmem.retrieval.config import KIND_LABELS, SearchConfig
from kgmem.retrieval.hybrid import HybridRetriever, fused_hit
from kgmem.retrieval.keyword import KeywordRetriever
from kgmem.retrieval.legs import GuardedLeg
from kgmem.retrieval.scope import Scope
from kgmem.retrieval.timing import lap, start
from kgmem.retrieval.types import Candidate, SearchHit
from kgmem.runner import Gather, LocalIO, Op, Read, returns

if TYPE_CHECKING:
    from kgmem.concepts import ConceptExtractor

log = logging.getLogger(__name__)

# What the expansion read hydrates of every item (its hit's text, metadata and quality inputs): the legs
# of a Graph RAG search return ids and scores only (Scope.payload), so this is all a hit carries.
_PROP_KEYS = ("text", "ref", "session", "ts", "role", "seq", "tool", "confidence", "alpha", "beta", "updated_at",
              "last_used", "v_alpha", "v_beta")


class GraphRAGRetriever:
    """Hybrid candidates, expanded through the graph and re-ranked by learned quality."""

    def __init__(self, hybrid: HybridRetriever, config: SearchConfig,
                 sample: Callable[[float, float], float] | None = None,
                 concepts: "ConceptExtractor | None" = None) -> None:
        self.hybrid = hybrid
        self.config = config
        # The question's concepts for the concept hop (None: its capitalised names, normalised).
        self.concepts = concepts
        # Thompson sampling of the usage posterior (config.usage_sampling); None = the posterior mean.
        self.sample = sample if config.usage_sampling == "thompson" else None
        self.last_timings: dict[str, float] = {}

    def search(self, query: str, scope: Scope) -> Op[list[SearchHit]]:
        """The ``scope.k`` best items after expansion, fusion and quality adjustment (an operation)."""
        lean = not self._needs_text(query)  # the expansion read hydrates what the hits show
        folded = self._folded_leg() if lean else None
        if folded is not None:
            return (yield from self._search_one_trip(query, scope, folded))
        hop = self.config.concept_hop and self.config.use_graph
        leg_scope = scope if not lean else replace(scope, payload=False)
        keys: list[str] = []
        if hop and self.concepts is not None:  # the question's concepts (spaCy: CPU) beside the legs' waits
            legs, keys = yield Gather((self.hybrid.candidates(query, leg_scope), self._question_keys(query)))
        else:
            legs = yield from self.hybrid.candidates(query, leg_scope)
            keys = (yield from self._question_keys(query)) if hop else []
        first = self.hybrid.fuse(legs, scope)
        if not first:
            self.last_timings = dict(self.hybrid.last_timings)
            return []
        scope = yield from self._expansion_scope(query, scope)
        hop_seeds = self._hop_seeds(first, keys) if hop else {}
        t0 = time.perf_counter_ns()
        head, expand = self._head(first, scope, query)
        result = yield Read("retrieval/expand", self._expand_params(first, head, expand, scope, hop_seeds))
        lap(scope, "expand", t0)
        hop_cands = self._hop_candidates(result[0]["hop"], hop_seeds, keys, scope) if hop_seeds else []
        return self._finish(legs, first, result[0]["rows"], hop_cands, scope, t0)

    def _search_one_trip(self, query: str, scope: Scope, folded: GuardedLeg) -> Op[list[SearchHit]]:
        """Graph RAG in two waits: the other legs (Chroma), then one statement that runs the folded
        keyword leg, fuses and expands (``retrieval/search_expand``). Python fuses the same candidates
        again; the statement's expansion is used when it picked the same head and seeds — else (a tie
        at the head's edge) ``retrieval/expand`` is read as in :meth:`search`, so the ranking is the
        same either way."""
        t0 = time.perf_counter_ns()
        lean = replace(scope, payload=False)
        others = [leg for leg in self.hybrid.legs if leg is not folded]
        found = yield Gather(tuple(leg.candidates(query, lean) for leg in others))
        lap(scope, "legs", t0)
        pre = {leg.name: cands for leg, cands in zip(others, found)}
        scope = yield from self._expansion_scope(query, scope)
        t1 = time.perf_counter_ns()
        keyword = folded.leg
        params = keyword.params(query, lean)
        cfg = self.config
        expansion = self._expand_params([], [], set(), scope, {})
        del expansion["seeds"], expansion["hop_seeds"]  # the statement picks the seeds itself
        try:
            result = yield Read("retrieval/search_expand", {
                **params, **expansion,
                "pre": _pre_fused(pre, self.hybrid.weights, self.config.rrf_k),
                "keyword_weight": float(self.hybrid.weights.get(folded.name, 0.0)),
                "rrf_k": cfg.rrf_k, "agreement_bonus": float(cfg.agreement_bonus),
                "size": max(3 * scope.k, cfg.expansion_seeds),
                "expand": cfg.expansion_seeds if cfg.use_graph and cfg.hops > 0 else 0})
        except neo4j.exceptions.ClientError as exc:
            raise keyword.index_error(exc) or exc
        row = result[0]
        legs = {leg.name: (keyword.parse(row["kw"]) if leg is folded else pre[leg.name]) for leg in self.hybrid.legs}
        first = self.hybrid.fuse(legs, scope)
        self.hybrid.last_timings = {"legs_ms": (t1 - t0) / 1e6}
        if not first:
            lap(scope, "expand", t1)
            self.last_timings = {**self.hybrid.last_timings, "expand_ms": (time.perf_counter_ns() - t1) / 1e6}
            return []
        head, expand = self._head(first, scope, query)
        rows = row["rows"]
        if not (set(head) <= set(row["head"]) and expand == set(row["expanded"])):
            log.debug("search_expand picked another head than the fusion (a tie); reading the expansion again")
            rows = (yield Read("retrieval/expand", self._expand_params(first, head, expand, scope, {})))[0]["rows"]
        lap(scope, "expand", t1)
        by_id = {r["id"]: r for r in rows}
        rows = [by_id[i] for i in head if i in by_id]  # the head's order, as retrieval/expand returns it
        return self._finish(legs, first, rows, [], scope, t1)

    def _finish(self, legs: dict[str, list[Candidate]], first: list[fusion.Fused], rows: list[dict[str, Any]],
                hop_cands: list[Candidate], scope: Scope, t0: int) -> list[SearchHit]:
        """Fuse the hydrated candidates and the neighbours, then rank (quality, slots)."""
        t1 = time.perf_counter_ns()
        props, graph_cands = self._neighbours(first, rows)
        # Items the graph no longer has (a stale vector) or that were deactivated are dropped.
        legs = {leg: [c for c in cands if c.id in props] for leg, cands in legs.items()}
        legs = {leg: [_rerank(c, i) for i, c in enumerate(cands, start=1)] for leg, cands in legs.items()}
        for c in [*graph_cands, *hop_cands]:
            props.setdefault(c.id, c.props)
        lap(scope, "rank", t1)
        fused = self.hybrid.fuse(legs, scope)
        t2 = start(scope)
        hits = self._rank(fused, graph_cands, props, scope.k, hop_cands)
        lap(scope, "rank", t2)
        self.last_timings = {**self.hybrid.last_timings, "expand_ms": (t1 - t0) / 1e6}
        return hits

    def _folded_leg(self) -> GuardedLeg | None:
        """The leg whose read the expansion statement runs itself (the keyword leg), when the search
        expands and has it; None = the legs run first, then the expansion read."""
        if not (self.config.use_graph or self.config.use_quality):
            return None
        for leg in self.hybrid.legs:
            if isinstance(leg, GuardedLeg) and isinstance(leg.leg, KeywordRetriever):
                return leg
        return None

    def _expansion_scope(self, query: str, scope: Scope) -> Op[Scope]:
        """The scope the expansion reads with (a session search's overlay epoch: see the service)."""
        return (yield from returns(scope))

    def _needs_text(self, query: str) -> bool:
        """Whether seeds are picked by their text before the expansion read: a question's entity seeds
        (two or more names) and the concept hop look for names in the candidates' text."""
        cfg = self.config
        if not cfg.use_graph:
            return False
        if cfg.concept_hop:
            return True
        return cfg.hops > 0 and cfg.entity_seeds and len(slots.query_names(query)) >= 2

    def _expansion_seeds(self, fused: list[fusion.Fused], query: str) -> set[str]:
        """The best ``expansion_seeds`` candidates, plus (``entity_seeds``, a question naming two or more
        entities) each name's best candidate, so every entity of a multi-hop question is expanded."""
        cfg = self.config
        seeds = {f.id for f in fused[: cfg.expansion_seeds]}
        if cfg.entity_seeds:
            names = slots.query_names(query)
            if len(names) >= 2:
                seeds.update(slots.entity_seeds(names, [(f.id, _searchable(f)) for f in fused], cfg.entity_seed_pool))
        return seeds

    def _head(self, fused: list[fusion.Fused], scope: Scope, query: str) -> tuple[list[str], set[str]]:
        """The ids the expansion read hydrates (best first) and the seeds it walks from."""
        cfg = self.config
        expand = self._expansion_seeds(fused, query) if cfg.use_graph and cfg.hops > 0 else set()
        # Only the head of the first fusion can still reach the top k after the quality factors
        # (which span roughly ×0.3–×1.5), so only the head is hydrated: fewer index seeks per search.
        size = max(3 * scope.k, cfg.expansion_seeds)
        return [f.id for i, f in enumerate(fused) if i < size or f.id in expand], expand

    def _expand_params(self, fused: list[fusion.Fused], head: list[str], expand: set[str], scope: Scope,
                       hop_seeds: dict[str, float]) -> dict[str, Any]:
        """Parameters of ``retrieval/expand`` (and the expansion part of ``retrieval/search_expand``)."""
        cfg = self.config
        kinds = {f.id: f.kind for f in fused}
        return dict(
            ns=scope.ns, seeds=[{"id": i, "label": KIND_LABELS[kinds[i]], "expand": i in expand} for i in head],
            hops=cfg.hops if cfg.use_graph else 0, decay=cfg.hop_decay,
            per_seed=cfg.expansion_per_seed, labels=scope.labels, session=scope.session,
            overlay_session=scope.session if cfg.use_session_overlay else None,
            overlay_epoch=scope.overlay_epoch, overlay_damping=scope.overlay_damping,
            hop_seeds=[{"id": i, "label": KIND_LABELS[kinds[i]]} for i in hop_seeds],
            concept_max_df=cfg.concept_max_df, concept_alpha=cfg.concept_alpha,
            concept_per_seed=cfg.concept_per_seed,
        )

    @staticmethod
    def _neighbours(fused: list[fusion.Fused],
                    rows: list[dict[str, Any]]) -> tuple[dict[str, dict[str, Any]], list[Candidate]]:
        """The expansion's rows as the hydrated properties of the active candidates and the neighbours
        as graph candidates, best first (a neighbour reached from several seeds keeps its best weight)."""
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

    def _question_keys(self, query: str) -> Op[list[str]]:
        """The concept keys the question names (the concept extractor's, else its capitalised names)."""
        if self.concepts is not None:
            found = yield LocalIO(self.concepts.extract, (query,))  # spaCy: CPU, off the event loop
            return [m.key for m in found]
        return (yield from returns([normalise_key(name) for name in slots.query_names(query)]))

    def _hop_seeds(self, fused: list[fusion.Fused], keys: list[str]) -> dict[str, float]:
        """The concept hop's seeds (:func:`kgmem.retrieval.concept_hop.pick_seeds`); {} = no hop."""
        cfg = self.config
        if cfg.concept_per_seed == 0:
            return {}
        walkable = [f for f in fused if KIND_LABELS[f.kind] != "Entity"]
        return concept_hop.pick_seeds([(f.id, f.score, _searchable(f)) for f in walkable], keys,
                                      cfg.concept_seeds, cfg.concept_seed_pool)

    def _hop_candidates(self, rows: list[dict[str, Any]], seeds: dict[str, float], keys: list[str],
                        scope: Scope) -> list[Candidate]:
        """The expansion read's concept-hop rows as candidates, scored by
        :func:`kgmem.retrieval.concept_hop.neighbour_scores`, best first."""
        cfg = self.config
        found = {n["id"]: n for row in rows for n in row["neighbours"]}
        scored = concept_hop.neighbour_scores(
            ((row["seed"], n["id"], [concept_hop.Shared(c["key"], c["df"]) for c in n["shared"]])
             for row in rows for n in row["neighbours"]),
            seeds, keys, alpha=cfg.concept_alpha, max_df=cfg.concept_max_df, query_boost=cfg.concept_query_boost,
            cap=cfg.concept_cap, best_multiple=cfg.concept_best_multiple, weight=cfg.concept_weight)
        return [
            Candidate(id=nb.id, kind=LABEL_KINDS[found[nb.id]["label"]], rank=i, score=nb.score,
                      text=found[nb.id]["text"] or "", props={k: found[nb.id].get(k) for k in _PROP_KEYS},
                      path=(nb.via[0][0], "MENTIONS", concept_id(scope.ns, nb.via[0][1]), "MENTIONS", nb.id))
            for i, nb in enumerate(scored, start=1)
        ]

    def _rank(self, fused: list[fusion.Fused], graph_cands: list[Candidate], props: dict[str, dict[str, Any]],
              k: int, hop_cands: list[Candidate] = ()) -> list[SearchHit]:
        """Quality-adjust direct hits and neighbours, then let neighbours compete for slots
        (:func:`kgmem.retrieval.slots.interleave`)."""
        cfg = self.config
        weights = fusion.QualityWeights(cfg.confidence_weight, cfg.usage_weight, cfg.staleness_weight,
                                        cfg.prior_alpha, cfg.prior_beta)
        now = datetime.now(timezone.utc)
        factors: dict[str, dict[str, float]] = {}

        def quality(item_id: str, kind: str) -> float:
            if not cfg.use_quality:
                return 1.0
            if item_id not in factors:
                factors[item_id] = fusion.quality_factors(props.get(item_id, {}), cfg.half_life_days.get(kind),
                                                          weights, now, self.sample)
            return factors[item_id]["quality"]

        direct = {f.id: f for f in fused}
        graph = {c.id: c for c in graph_cands}
        placed = slots.interleave(
            sorted(((f.id, f.score * quality(f.id, f.kind), "direct") for f in fused), key=lambda x: -x[1]),
            [(c.id, cfg.graph_weight * c.score * quality(c.id, c.kind)) for c in graph_cands],
            k, cfg.graph_margin, cfg.graph_slot_every, cfg.graph_slot_start,
        )
        hop = {c.id: c for c in hop_cands}
        if hop:
            placed = slots.interleave(
                [(p.id, p.score, p.source) for p in placed],
                [(c.id, c.score * quality(c.id, c.kind)) for c in hop_cands],
                k, cfg.concept_margin, cfg.concept_slot_every, cfg.concept_slot_start,
                source="concept", floor=cfg.concept_floor, lift=False)
        hits = []
        for item in placed:
            f = direct.get(item.id)
            if item.source in ("graph", "concept"):
                cand, weight = (graph[item.id], cfg.graph_weight) if item.source == "graph" else (hop[item.id], 1.0)
                base = f.score if f is not None else 0.0
                f = fusion.Fused(cand.id, cand.kind, base, dict(f.breakdown) if f else {},
                                 {**(f.by_leg if f else {}), "graph": cand})
                f.breakdown[item.source] = weight * cand.score - base
                f.score = weight * cand.score
            breakdown = dict(f.breakdown)
            breakdown["fused"] = f.score
            breakdown.update(factors.get(f.id, {}))
            hits.append(fused_hit(f, item.score, breakdown, props.get(f.id, {})))
        return hits


def _pre_fused(legs: dict[str, list[Candidate]], weights: Mapping[str, float], rrf_k: int) -> list[dict[str, Any]]:
    """The legs' candidates fused as :func:`kgmem.retrieval.fusion.fuse` sums them (no agreement bonus),
    in order of first appearance, for ``retrieval/search_expand`` to add the keyword leg to."""
    by_id = {f.id: f for f in fusion.fuse(legs, weights, rrf_k, 0.0)}
    order = dict.fromkeys(c.id for cands in legs.values() for c in cands)
    vector = {c.id: c.rank for c in legs.get("vector", ())}
    return [{"id": i, "label": KIND_LABELS[by_id[i].kind], "score": by_id[i].score, "vrank": vector.get(i)}
            for i in order]


def _searchable(f: fusion.Fused) -> str:
    """``"role: text"`` of a fused candidate (what an entity name is looked for in)."""
    for cand in f.by_leg.values():
        if cand.text:
            role = cand.props.get("role")
            return f"{role}: {cand.text}" if role else cand.text
    return ""


def _rerank(c: Candidate, rank: int) -> Candidate:
    if c.rank == rank:
        return c
    return replace(c, rank=rank)


def _path(n: dict[str, Any]) -> tuple[str, ...]:
    """Interleave node ids and relationship types: ("<seed id>", "NEXT", "<id>", ...)."""
    out: list[str] = []
    for i, node in enumerate(n["path_ids"]):
        out.append(node)
        if i < len(n["path_rels"]):
            out.append(n["path_rels"][i])
    return tuple(out)

"""The Graph RAG strategy (docs/retrieval.md "The pipeline"): every leg → one traversal from their fused seeds →
fusion of the legs and the traversal → quality adjustment."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from kgmem.concepts import concept_id, normalise_key
from kgmem.kinds import LABEL_KINDS
from kgmem.retrieval import concept_hop, fusion, slots, speakers
from kgmem.retrieval.config import KIND_LABELS, SearchConfig
from kgmem.retrieval.hybrid import HybridRetriever, fused_hit
from kgmem.retrieval.scope import Scope
from kgmem.retrieval.text import query_names
from kgmem.retrieval.timing import lap, start
from kgmem.retrieval.types import Candidate, SearchHit
from kgmem.runner import Gather, LocalIO, Op, Read

if TYPE_CHECKING:
    from kgmem.concepts import ConceptExtractor

log = logging.getLogger(__name__)

# What the expansion read hydrates of every item (its hit's text, metadata and quality inputs): the legs
# of a Graph RAG search return ids and scores only (Scope.payload), so this is all a hit carries.
_PROP_KEYS = (
    "text",
    "ref",
    "session",
    "ts",
    "role",
    "seq",
    "tool",
    "confidence",
    "alpha",
    "beta",
    "updated_at",
    "last_used",
    "v_alpha",
    "v_beta",
    "valid_from",
    "valid_until",
)


class GraphRAGRetriever:
    """Hybrid candidates, expanded through the graph and re-ranked by learned quality."""

    def __init__(
        self,
        hybrid: HybridRetriever,
        config: SearchConfig,
        sample: Callable[[float, float], float] | None = None,
        concepts: ConceptExtractor | None = None,
    ) -> None:
        self.hybrid = hybrid
        self.config = config
        # The question's concepts for the concept hop (None: its capitalised names, normalised).
        self.concepts = concepts
        # Thompson sampling of the usage posterior (config.usage_sampling); None = the posterior mean.
        self.sample = sample if config.usage_sampling == "thompson" else None
        self.last_timings: dict[str, float] = {}

    def search(self, query: str, scope: Scope) -> Op[list[SearchHit]]:
        """The ``scope.k`` best items after expansion, fusion and quality adjustment (an operation)."""
        lean = not self._needs_text()  # the expansion read hydrates what the hits show
        legs = yield from self.hybrid.candidates(query, replace(scope, payload=False) if lean else scope)
        first = self.hybrid.fuse(legs, scope)
        if not first:
            self.last_timings = dict(self.hybrid.last_timings)
            return []
        t0 = time.perf_counter_ns()
        names = query_names(query)  # the question's names: entity seeds, speaker prior, concept hop
        hop_cands: list[Candidate] = []
        if self.config.concept_hop and self.config.use_graph:  # its read runs beside the expansion's
            rows, hop_cands = yield Gather(
                (self._expand(first, scope, query, names), self._concept_hop(first, scope, query, names))
            )
        else:
            rows = yield from self._expand(first, scope, query, names)
        lap(scope, "expand", t0)
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
        hits = self._rank(fused, graph_cands, props, scope.k, hop_cands, self._speaker_factors(names, props))
        lap(scope, "rank", t2)
        self.last_timings = {**self.hybrid.last_timings, "expand_ms": (t1 - t0) / 1e6}
        return hits

    def _needs_text(self) -> bool:
        """Whether seeds are picked by their text before the expansion read: the concept hop looks for
        the question's concepts in the candidates' text. (A question's entity seeds are picked by the
        expansion read itself, from the text it hydrates: see :meth:`_entity_names`.)"""
        return self.config.use_graph and self.config.concept_hop

    def _speaker_factors(self, names: list[str], props: dict[str, dict[str, Any]]) -> dict[str, float]:
        """``speaker_prior`` per item another speaker said, when the question names (``names``) a speaker."""
        if self.config.speaker_prior >= 1.0:
            return {}
        roles = {item_id: p.get("role") for item_id, p in props.items()}
        named = speakers.named_speakers(names, roles.values())
        return speakers.speaker_factors(named, roles, self.config.speaker_prior)

    def _entity_names(self, names: list[str], hops: int) -> list[str]:
        """The question's ``names`` when it names two or more entities (``entity_seeds``): the expansion
        read also expands each name's best candidate, so every entity of a multi-hop question is expanded."""
        if hops == 0 or not self.config.entity_seeds:
            return []
        return names if len(names) >= 2 else []

    def _expand(
        self, fused: list[fusion.Fused], scope: Scope, query: str, names: list[str]
    ) -> Op[list[dict[str, Any]]]:
        """One round trip: hydrate the head of the fused candidates, expand the seeds; the rows.
        ``names``: the question's names (:func:`kgmem.retrieval.text.query_names`)."""
        cfg = self.config
        hops = cfg.hops if cfg.use_graph else 0
        expand = {f.id for f in fused[: cfg.expansion_seeds]} if hops > 0 else set()
        names = self._entity_names(names, hops)
        pool = [f.id for f in fused[: cfg.entity_seed_pool]] if names else []
        # Only the head of the first fusion can still reach the top k after the quality factors
        # (which span roughly ×0.3–×1.5), so only the head is hydrated: fewer index seeks per search.
        # The entity-seed pool (a longer head, for a small k) is read too; beyond the head an item is
        # kept only as a seed.
        size = max(3 * scope.k, cfg.expansion_seeds)
        head = fused[: max(size, len(pool))]
        seeds = [{"id": f.id, "label": KIND_LABELS[f.kind], "expand": f.id in expand} for f in head]
        result = yield Read(
            "retrieval/expand",
            dict(
                ns=scope.ns,
                seeds=seeds,
                hops=hops,
                decay=cfg.hop_decay,
                per_seed=cfg.expansion_per_seed,
                labels=scope.labels,
                session=scope.session,
                names=names,
                pool_rank={item_id: rank for rank, item_id in enumerate(pool)},
                overlay_session=scope.session if cfg.use_session_overlay else None,
                overlay_epoch=scope.overlay_epoch,
                overlay_damping=scope.overlay_damping,
                as_of=scope.as_of,
            ),
        )
        rows = result[0]["rows"]
        if len(head) > size:
            kept = {f.id for f in fused[:size]}
            rows = [r for r in rows if r["id"] in kept or r["expand"]]
        return rows

    @staticmethod
    def _neighbours(
        fused: list[fusion.Fused], rows: list[dict[str, Any]]
    ) -> tuple[dict[str, dict[str, Any]], list[Candidate]]:
        """The expansion's rows as the hydrated properties of the active candidates and the neighbours
        as graph candidates, best first (a neighbour reached from several seeds keeps its best weight)."""
        seed_score = {f.id: f.score for f in fused}
        props: dict[str, dict[str, Any]] = {}
        best: dict[str, tuple[float, dict[str, Any]]] = {}
        for row in rows:
            if not row["active"]:
                continue
            # The row itself: its keys beyond _PROP_KEYS (id, label, active, expanded) are read by no
            # one (a hit's metadata takes _META_KEYS only), and a copy per row cost more than the rest.
            props[row["id"]] = row
            score = seed_score[row["id"]]
            for n in row["expanded"]:
                weight = score * n["weight"]
                known = best.get(n["id"])
                if known is None or weight > known[0]:
                    best[n["id"]] = (weight, n)  # its path is built once, for the winner only
        ranked = sorted(best.items(), key=lambda kv: -kv[1][0])
        graph_cands = [
            Candidate(
                id=nid,
                kind=LABEL_KINDS[n["label"]],
                rank=i,
                score=w,
                text=n["text"] or "",
                props={k: n[k] for k in _PROP_KEYS},
                path=_path(n),
            )
            for i, (nid, (w, n)) in enumerate(ranked, start=1)
        ]
        return props, graph_cands

    def _concept_hop(
        self, fused: list[fusion.Fused], scope: Scope, query: str, names: list[str]
    ) -> Op[list[Candidate]]:
        """Neighbours through shared concepts (:mod:`kgmem.retrieval.concept_hop`), one round trip."""
        cfg = self.config
        if self.concepts is not None and cfg.concept_query_concepts == "nlp":
            found = yield LocalIO(self.concepts.extract, (query,))  # spaCy: CPU, off the event loop
            keys = [m.key for m in found]
        else:
            keys = [normalise_key(name) for name in names]
        walkable = [f for f in fused if KIND_LABELS[f.kind] != "Entity"]
        seeds = concept_hop.pick_seeds(
            [(f.id, f.score, _searchable(f)) for f in walkable], keys, cfg.concept_seeds, cfg.concept_seed_pool
        )
        if not seeds or cfg.concept_per_seed == 0:
            return []
        kinds = {f.id: f.kind for f in walkable}
        rows = yield Read(
            "retrieval/concept_hop",
            dict(
                ns=scope.ns,
                seeds=[{"id": i, "label": KIND_LABELS[kinds[i]]} for i in seeds],
                max_df=cfg.concept_max_df,
                alpha=cfg.concept_alpha,
                per_seed=cfg.concept_per_seed,
                labels=scope.labels,
                session=scope.session,
                as_of=scope.as_of,
            ),
        )
        found = {n["id"]: n for row in rows for n in row["neighbours"]}
        scored = concept_hop.neighbour_scores(
            (
                (row["seed"], n["id"], [concept_hop.Shared(c["key"], c["df"]) for c in n["shared"]])
                for row in rows
                for n in row["neighbours"]
            ),
            seeds,
            keys,
            alpha=cfg.concept_alpha,
            max_df=cfg.concept_max_df,
            query_boost=cfg.concept_query_boost,
            cap=cfg.concept_cap,
            best_multiple=cfg.concept_best_multiple,
            weight=cfg.concept_weight,
            degrees={row["seed"]: row["degree"] for row in rows},
            seed_damping=cfg.concept_seed_damping,
        )
        return [
            Candidate(
                id=nb.id,
                kind=LABEL_KINDS[found[nb.id]["label"]],
                rank=i,
                score=nb.score,
                text=found[nb.id]["text"] or "",
                props={k: found[nb.id].get(k) for k in _PROP_KEYS},
                path=(nb.via[0][0], "MENTIONS", concept_id(scope.ns, nb.via[0][1]), "MENTIONS", nb.id),
            )
            for i, nb in enumerate(scored, start=1)
        ]

    def _rank(
        self,
        fused: list[fusion.Fused],
        graph_cands: list[Candidate],
        props: dict[str, dict[str, Any]],
        k: int,
        hop_cands: Sequence[Candidate] = (),
        speaker: dict[str, float] | None = None,
    ) -> list[SearchHit]:
        """Quality-adjust direct hits and neighbours (and apply the ``speaker`` prior's factors), then
        let neighbours compete for slots (:func:`kgmem.retrieval.slots.interleave`)."""
        cfg = self.config
        weights = fusion.QualityWeights(
            cfg.confidence_weight, cfg.usage_weight, cfg.staleness_weight, cfg.prior_alpha, cfg.prior_beta
        )
        now = datetime.now(UTC)
        factors: dict[str, dict[str, float]] = {}

        speaker = speaker or {}

        def quality(item_id: str, kind: str) -> float:
            prior = speaker.get(item_id, 1.0)
            if not cfg.use_quality:
                return prior
            if item_id not in factors:
                factors[item_id] = fusion.quality_factors(
                    props.get(item_id, {}), cfg.half_life_days.get(kind), weights, now, self.sample
                )
            return factors[item_id]["quality"] * prior

        direct = {f.id: f for f in fused}
        graph = {c.id: c for c in graph_cands}
        placed = slots.interleave(
            sorted(((f.id, f.score * quality(f.id, f.kind), "direct") for f in fused), key=lambda x: -x[1]),
            [(c.id, cfg.graph_weight * c.score * quality(c.id, c.kind)) for c in graph_cands],
            k,
            cfg.graph_margin,
            cfg.graph_slot_every,
            cfg.graph_slot_start,
        )
        hop = {c.id: c for c in hop_cands}
        if hop:
            placed = slots.interleave(
                [(p.id, p.score, p.source) for p in placed],
                [(c.id, c.score * quality(c.id, c.kind)) for c in hop_cands],
                k,
                cfg.concept_margin,
                cfg.concept_slot_every,
                cfg.concept_slot_start,
                source="concept",
                floor=cfg.concept_floor,
                lift=False,
            )
        hits = []
        for item in placed:
            if item.source in ("graph", "concept"):
                own = direct.get(item.id)  # also a direct hit, or None
                cand, weight = (graph[item.id], cfg.graph_weight) if item.source == "graph" else (hop[item.id], 1.0)
                base = own.score if own is not None else 0.0
                f = fusion.Fused(
                    cand.id,
                    cand.kind,
                    base,
                    dict(own.breakdown) if own else {},
                    {**(own.by_leg if own else {}), "graph": cand},
                )
                f.breakdown[item.source] = weight * cand.score - base
                f.score = weight * cand.score
            else:  # a direct item: one of `fused`
                f = direct[item.id]
            breakdown = dict(f.breakdown)
            breakdown["fused"] = f.score
            breakdown.update(factors.get(f.id, {}))
            if f.id in speaker:
                breakdown["speaker"] = speaker[f.id]
            hits.append(fused_hit(f, item.score, breakdown, props.get(f.id, {})))
        return hits


def _searchable(f: fusion.Fused) -> str:
    """``"role: text"`` of a fused candidate (what an entity name is looked for in)."""
    for cand in f.by_leg.values():
        if cand.text:
            role = cand.props.get("role")
            return f"{role}: {cand.text}" if role else cand.text
    return ""


def _rerank(c: Candidate, rank: int) -> Candidate:
    return c if c.rank == rank else c.ranked(rank)


def _path(n: dict[str, Any]) -> tuple[str, ...]:
    """Interleave node ids and relationship types: ("<seed id>", "NEXT", "<id>", ...)."""
    out: list[str] = []
    for i, node in enumerate(n["path_ids"]):
        out.append(node)
        if i < len(n["path_rels"]):
            out.append(n["path_rels"][i])
    return tuple(out)

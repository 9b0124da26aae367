"""Every weight and threshold of the Graph RAG pipeline, in one typed, declarative config.

A :class:`SearchConfig` is frozen; the named presets below are the supported
starting points (``fast``, ``balanced``, ``deep``) and any field can be overridden
with :meth:`SearchConfig.with_overrides` (e.g. by the evaluation script).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from kgmem import kinds
from kgmem.errors import ValidationError

#: Searchable kinds: Chroma collection kind → Neo4j label (from the registry, kgmem/kinds.py).
KIND_LABELS: dict[str, str] = kinds.KIND_LABELS
ALL_KINDS: tuple[str, ...] = tuple(KIND_LABELS)


class SearchConfig(BaseModel):
    """One search strategy's knobs (docs/retrieval.md). Distances are cosine distances (0 = identical)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = "custom"
    # -- legs --------------------------------------------------------------------
    use_vector: bool = True
    use_keyword: bool = True
    use_graph: bool = True
    overfetch: int = Field(3, ge=1, le=50, description="candidates per leg = k × overfetch")
    max_distance: float = Field(0.75, ge=0.0, le=2.0, description="vector hits farther than this are dropped")
    keyword_index: str = Field("kgmem_fulltext", pattern=r"^[A-Za-z0-9_]+$")
    # A query term that names a speaker ("What did Caroline paint?") counts again, × this weight, when it
    # matches a turn's ``role`` field: the speaker's own turns then outrank others' turns that only mention
    # the name. LoCoMo (docs/retrieval.md): keyword leg recall@10 0.609 → 0.66, MRR 0.455 → 0.50. 0 = off.
    keyword_role_boost: float = Field(1.5, ge=0.0, description="extra weight of a query term matching the speaker")
    # A capitalised question word that is a speaker's name in the namespace (the keyword statement probes
    # the index for it) matches the text × this weight, the role field as before: below 1 the other
    # speaker's turns that only address the speaker ("Hey Melanie!") count less; 0 = the role field only;
    # 1 = a name is an ordinary word (no probe). Two-fold figures: docs/retrieval.md.
    keyword_speaker_text_weight: float = Field(1.0, ge=0.0, le=1.0)
    # -- fusion (weighted reciprocal-rank fusion) ----------------------------------
    # The seed's 0.7 vector / 0.3 keyword was measured on LoCoMo (docs/retrieval.md): BM25 is the
    # stronger leg on conversational memory (recall@10 hybrid 0.55 at 70/30, 0.59 at 30/70), so the
    # default leans on the keyword leg; the vector leg still adds paraphrase matches (recall@20).
    # rrf_k 10 (not the textbook 60): the head of each leg counts more, and the graph lift (a max over
    # 0.9 × the seed's score) places a top seed's neighbours above weak direct hits. Measured on LoCoMo
    # with the other defaults (docs/retrieval.md): balanced recall@10 0.635 (60) → 0.684 (10).
    rrf_k: int = Field(10, ge=1)
    vector_weight: float = Field(0.3, ge=0.0)
    keyword_weight: float = Field(0.7, ge=0.0)
    agreement_bonus: float = Field(0.0, ge=0.0, description="extra RRF weight when both legs found the item")
    # A neighbour reached by the traversal inherits graph_weight × its seed's fused score × the path
    # weight (kgmem.retrieval.graph, kgmem.retrieval.slots).
    graph_weight: float = Field(1.0, ge=0.0)
    # A question naming a speaker of the pool (a hydrated turn's role): every item another speaker said
    # scores × this (kgmem.retrieval.speakers). 1 = off. 0.8 chosen independently on both LoCoMo dev
    # conversations by the two-fold protocol (docs/retrieval.md): held-out recall@10 and MRR up on both.
    speaker_prior: float = Field(0.8, gt=0.0, le=1.0)
    # -- expansion ------------------------------------------------------------------
    # Neighbours compete for their own slots (kgmem.retrieval.slots.interleave): direct hits keep their
    # order; a neighbour takes a position only when its inherited score beats the direct hit there by
    # × (1 + graph_margin), or when the position is a reserved graph slot (every graph_slot_every-th from
    # graph_slot_start; no neighbour before it). margin 0 without slots = the first version's max-lift ranking.
    # Defaults (margin 0.5, no reserved slots, expand from the best seed only): chosen on LoCoMo conv-26 —
    # the only expanding grid point there that kept every question category at plain hybrid's level —
    # and reported on conv-30 (docs/retrieval.md): recall@10 0.713 vs hybrid 0.683, every
    # category >= hybrid (multi-hop 0.389 vs 0.344).
    graph_margin: float = Field(0.5, ge=0.0)
    graph_slot_every: int = Field(0, ge=0, description="every n-th position is offered to a neighbour first; 0 = none")
    graph_slot_start: int = Field(1, ge=1)
    # A question naming several entities ("Did Jon and Gina both ...") also expands from each name's
    # best candidate (the best of the first entity_seed_pool fused candidates whose speaker or text has it).
    entity_seeds: bool = True
    entity_seed_pool: int = Field(30, ge=1)
    # A question asking for a current value ranks the newer of two same-subject hits first
    # (kgmem.retrieval.recency); off: the hits as ranked.
    newer_first: bool = True
    hops: int = Field(1, ge=0, le=2)
    hop_decay: float = Field(0.9, gt=0.0, le=1.0, description="score multiplier per hop")
    expansion_seeds: int = Field(1, ge=0, description="top fused candidates the traversal starts from")
    expansion_per_seed: int = Field(6, ge=0)
    # -- concept hop (kgmem.retrieval.concept_hop) ------------------------------------------
    # From the best concept_seeds candidates and each question concept's best candidate (of the first
    # concept_seed_pool), through the concepts they MENTION that at most concept_max_df memories mention,
    # to the other memories mentioning them: score = concept_weight × Σ seeds' fused score × the shared
    # concepts' Σ df^-concept_alpha (× concept_query_boost for a concept the question names), at most
    # concept_cap and at most concept_best_multiple × the most specific shared concept (so fifteen
    # mid-frequency words shared by two long replies do not count like a shared name).
    # The neighbours then compete for positions of the ranking (kgmem.retrieval.slots.interleave): never
    # before concept_slot_start, elsewhere by beating the item there × (1 + concept_margin) or in a
    # reserved slot (every concept_slot_every-th; 0 = none).
    # A seed passes on degree^-concept_seed_damping of its score through each concept (degree: the
    # walkable concepts it mentions), so a long reply's many ordinary df-2 phrases do not each carry
    # its full score.
    # Two-fold on LoCoMo and the LongMemEval check (docs/retrieval.md "Concept hop: two-fold on LoCoMo"):
    # concept_best_multiple 2 was chosen on both folds of an earlier grid (cap 1 keeps the integration
    # test's two-rare-concept bridge). Damping 0 / 0.5 (weight 1 / 2) was chosen per fold: pooled
    # multi-hop +0.038 over hybrid, short of the +0.05 goal, and both choices lose an evidence turn on
    # LongMemEval's gpt4_d12ceb0e; damping 1 keeps that turn but also the multi-hop gain away, so
    # damping stays 0 (the hop as before) until a setting meets both.
    # concept_floor 0: a floor took every LoCoMo gain away. Off in `balanced`; on in `deep`, or per
    # search with concept_hop=True.
    concept_hop: bool = False
    # The question's concepts for the hop's seeds: "names" = its capitalised names; "nlp" = the writers'
    # ConceptExtractor (a spaCy pass, ~11 ms CPU per question). Both found exactly the same evidence on all
    # 231 LoCoMo dev and all 12 LongMemEval questions at damping 0 and 0.5 (docs/retrieval.md "Concept
    # hop"), so the hop skips the spaCy pass by default.
    concept_query_concepts: Literal["nlp", "names"] = "names"
    concept_seeds: int = Field(3, ge=0)
    concept_seed_pool: int = Field(30, ge=0)
    concept_per_seed: int = Field(10, ge=0, le=200)
    concept_max_df: int = Field(15, ge=2)
    concept_alpha: float = Field(1.0, ge=0.0)
    concept_query_boost: float = Field(1.0, ge=0.0)
    concept_cap: float = Field(1.0, gt=0.0)
    concept_best_multiple: float = Field(
        2.0, ge=1.0, description="one seed's shared concepts add up to at most this × the most specific one"
    )
    concept_weight: float = Field(1.0, ge=0.0)
    concept_seed_damping: float = Field(
        0.0,
        ge=0.0,
        description="a seed passes on degree^-this of its score "
        "through each concept (degree: the walkable concepts it mentions)",
    )
    concept_margin: float = Field(0.0, ge=0.0)
    concept_slot_every: int = Field(0, ge=0)
    concept_slot_start: int = Field(3, ge=1)
    concept_floor: float = Field(
        0.0,
        ge=0.0,
        description="no concept neighbour ahead of a direct hit scoring >= this × the first; 0 = none protected",
    )
    # -- quality ---------------------------------------------------------------------
    use_quality: bool = True
    confidence_weight: float = Field(0.3, ge=0.0, le=1.0)
    usage_weight: float = Field(0.5, ge=0.0, le=1.0)
    staleness_weight: float = Field(0.2, ge=0.0, le=1.0)
    prior_alpha: float = Field(1.0, gt=0.0)
    prior_beta: float = Field(1.0, gt=0.0)
    # Usage posterior: its mean (deterministic) or one Thompson draw per item and search (exploration;
    # seeded by settings.retrieval.thompson_seed).
    usage_sampling: Literal["mean", "thompson"] = "mean"
    # -- BQAR session overlays (kgmem.retrieval.bqar) ------------------------------------
    # A search with a session ranks by global posterior + that session's overlay; feedback in the session
    # goes to the overlay and reaches the global posteriors only at session end (three-way merge).
    use_session_overlay: bool = True
    # Conversation shift: cosine distance of the query to the session's query centroid above this
    # → the overlay's view is multiplied by shift_damping (0 = reset). 0 = no shift detection.
    shift_threshold: float = Field(0.6, ge=0.0, le=2.0)
    shift_damping: float = Field(0.0, ge=0.0, le=1.0)
    shift_window: int = Field(5, ge=1)
    shift_min_queries: int = Field(2, ge=1)
    # Half-life in days of the staleness decay exp(-ln2/half_life · age) per kind; None = never stale
    # (what was said stays what was said; learned knowledge and fixes age).
    half_life_days: dict[str, float | None] = Field(
        default_factory=lambda: {"message": None, "knowledge": 180.0, "error": 90.0, "fix": 90.0, "entity": None}
    )

    def with_overrides(self, **overrides: Any) -> SearchConfig:
        """A copy with ``overrides`` applied and validated."""
        try:
            return SearchConfig.model_validate({**self.model_dump(), **overrides})
        except Exception as exc:  # pydantic's error names the field
            raise ValidationError(f"search config: {exc}") from exc


PRESETS: dict[str, SearchConfig] = {
    # Vector + keyword + fusion only: one Chroma query and one Neo4j round trip (no traversal, no
    # quality adjustment — feedback does not move this preset's ranking); a second, small read only when
    # knowledge is among the hits, to leave out superseded items (kgmem.retrieval.validity).
    # Each leg fetches k candidates (overfetch 1): with nothing after the fusion to lift a candidate,
    # a leg's k + 1st rarely reaches the top k, and Chroma reads the document and metadata of every
    # result row by row (40 rows ~4 ms, 20 ~3). On LoCoMo that kept recall@10 (0.649 against 0.639 with
    # overfetch 2; MRR 0.446 / 0.454) for ~2.5 ms less CPU per search (docs/retrieval.md, "Latency by
    # stage").
    "fast": SearchConfig(name="fast", use_graph=False, use_quality=False, hops=0, overfetch=1),
    # The default: both legs, 1-hop expansion from the best seeds.
    "balanced": SearchConfig(name="balanced"),
    # Wider candidate pools, 2-hop traversal (similar errors' fixes, knowledge via shared entities) and
    # the concept hop (memories that share a specific concept with the best hits).
    "deep": SearchConfig(name="deep", overfetch=5, hops=2, expansion_seeds=20, expansion_per_seed=10, concept_hop=True),
}


def preset(name: str | None, default: str = "balanced") -> SearchConfig:
    """The named preset; raises :class:`ValidationError` naming the known ones."""
    key = name or default
    try:
        return PRESETS[key]
    except KeyError:
        raise ValidationError(f"preset: unknown {key!r}; choose one of {', '.join(PRESETS)}") from None


def check_kinds(kinds: Any) -> tuple[str, ...]:
    """Validate a ``kinds`` argument (None = all kinds)."""
    if kinds is None:
        return ALL_KINDS
    if isinstance(kinds, str):
        kinds = [k.strip() for k in kinds.split(",") if k.strip()]
    bad = [k for k in kinds if k not in KIND_LABELS]
    if bad or not kinds:
        raise ValidationError(f"kinds: unknown {bad or kinds!r}; choose from {', '.join(ALL_KINDS)}")
    return tuple(dict.fromkeys(kinds))

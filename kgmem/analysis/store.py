"""The knowledge store: extracted items in, deduplicated and evolving ``Knowledge`` out.

For one batch of items (one analysis of one session window):

1. items the extractor itself doubts (confidence < ``min_extraction_confidence``) are skipped;
2. every content (and every quoted ``contradicts`` text) is embedded in one batch;
3. candidates are looked up — exact normalised text first (so an exact duplicate never
   depends on a threshold), then Chroma (kind ``"knowledge"``) at cosine ≥ ``related_cosine``,
   then the batch's own new items;
4. each candidate is judged, all pairs of the batch at once (:mod:`kgmem.analysis.judge`): a
   *duplicate* or *paraphrase* is merged into (its confidence boosted, once per session), a
   *contradiction* penalises the old item and the new one is inserted (never merged into the
   item it contradicts) with a ``CONTRADICTS`` edge, anything else is a new item; a paraphrase
   of an item a person removed is skipped. An item of an LLM extraction call carries the model's
   own verdict, which is final: its ``contradicts`` quote names the item it contradicts, and a
   stored item it restates near-verbatim is a duplicate (the prompt listed the stored items and
   asked for no repeats). Every other item (offline extraction, ingest) goes to the store's
   :class:`~kgmem.analysis.judge.Judge`: the LLM's batched adjudication or the offline rules;
5. the plan is written in ONE Neo4j transaction (``cypher/analysis/apply_knowledge``) that
   also applies the confidence formulas, the triples and the provenance, then vectors go to
   Chroma and their pending flags are cleared.

A contradiction is never merged: "the port is 8080" and "the port is 9090" are close in embedding
space but are different facts.
"""

from __future__ import annotations

import builtins
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import numpy as np

from kgmem import kinds
from kgmem.analysis import confidence
from kgmem.analysis.events import AnalysisStats
from kgmem.analysis.judge import Judge, Pair, Statement, Verdict
from kgmem.analysis.offline_judge import OfflineJudge, Thresholds
from kgmem.analysis.schema import KNOWLEDGE_TYPES, ExtractedItem, normalise_text
from kgmem.concepts import ConceptExtractor, concept_rows, merge_mentions, resolve_aliases
from kgmem.config import AnalysisSettings
from kgmem.errors import AlreadyApplied, KnowledgeNotFound, ValidationError, VectorStoreUnavailable
from kgmem.graph import GraphStore
from kgmem.ids import node_id
from kgmem.runner import Embed, Gather, LocalIO, Op, Read, SyncIO, VectorQuery, VectorUpsert, Write, synced
from kgmem.timestamps import normalise_ts
from kgmem.tombstones import drop_forgotten_op, tombstoned_op, written_gone
from kgmem.vectors import Embedder, VectorStore

log = logging.getLogger(__name__)

KNOWLEDGE_KIND = kinds.KNOWLEDGE.name
ENTITY_KIND = kinds.ENTITY.name
_NEIGHBOURS = 3
# A quoted ``contradicts`` text names an item in its own words: only a near-verbatim match is that item.
_QUOTE_COSINE = 0.90
# An LLM-extracted item this close to a stored one restates it (the reference design's dedup threshold).
_RESTATED_COSINE = 0.90
# Whose items carry their own verdict: the extraction call saw the stored items.
_SELF_JUDGED = frozenset({"llm"})
# Whose items are dated by their window (its newest turn), not by the turn that said them.
_WINDOWED = frozenset({"llm", "offline"})


@dataclass
class Outcome:
    """What happened to one extracted item."""

    action: str  # inserted | merged | contradicted | skipped
    content: str
    id: str | None = None
    old_confidence: float | None = None
    new_confidence: float | None = None
    contradicted_id: str | None = None
    reason: str | None = None
    judgement: str | None = None  # the judge's rule and cosine for a merge or a contradiction


@dataclass(frozen=True)
class ManualVerdict:
    """Where an item a person adds lands (:meth:`KnowledgeStore.judge_manual_op`): ``id`` — its own new id,
    or the stored item it restates (``merged``); the stored items it ``contradicts`` (superseded by it);
    the judge's word (``judgement``); its vector, when it is a new item."""

    id: str
    merged: bool
    contradicts: tuple[str, ...] = ()
    judgement: str | None = None
    vector: np.ndarray | None = None


@dataclass
class _Row:
    """One knowledge id touched by the batch (the unit of the write)."""

    id: str
    insert: bool
    item: ExtractedItem | None = None
    norm: str | None = None
    vector: np.ndarray | None = None
    seen: int = 0
    triple: dict[str, str] | None = None
    existing: dict[str, Any] | None = None


@dataclass
class _Plan:
    rows: dict[str, _Row] = field(default_factory=dict)
    contradictions: list[dict[str, str]] = field(default_factory=list)
    outcomes: list[Outcome] = field(default_factory=list)


def entity_id(ns: str, name: str) -> str:
    """Entity id per the shared contract: lower-cased, stripped name."""
    return node_id(ns, "entity", name.strip().lower())


def knowledge_id(ns: str, content: str) -> str:
    """Knowledge id per the shared contract: the normalised content."""
    return node_id(ns, KNOWLEDGE_KIND, normalise_text(content))


class KnowledgeStore:
    """Dedup, merge, contradiction, insert and the manual edits of ``Knowledge`` items."""

    def __init__(
        self,
        graph: GraphStore | None,
        vectors: VectorStore | None,
        embedder: Embedder | None,
        settings: AnalysisSettings,
        stats: AnalysisStats,
        concepts: ConceptExtractor | None = None,
        judge: Judge | None = None,
    ) -> None:
        self.graph = graph
        self.vectors = vectors
        self.embedder = embedder
        self.settings = settings
        self.stats = stats
        # Decides the pairs no extraction call saw: the LLM's adjudication, else the offline rules.
        self.judge: Judge = judge or OfflineJudge(Thresholds(paraphrase_cosine=settings.dedup_cosine))
        # Items MENTION the concepts of their text and triple (kgmem/concepts); None writes none.
        self.concepts = concepts
        # The *_op methods are operations (kgmem.runner): AsyncKGMem runs them on its async stores.
        self.io = SyncIO(graph, vectors, embedder)
        self._repair_due: set[str] = set()  # namespaces with vectors left pending by a Chroma failure

    def concepts_of(self, ns: str, content: str) -> builtins.list[dict[str, str]] | None:
        """The concept rows of ``content`` (None when concepts are off: MENTIONS stay as they are)."""
        if self.concepts is None or not self.concepts.enabled:
            return None
        return concept_rows(ns, self.concepts.extract(content))

    def _row_concepts(self, ns: str, rows: builtins.list[_Row]) -> dict[str, builtins.list[dict[str, str]]]:
        """Concept rows of the batch's new items: their content's concepts and their triple's
        subject and object (the same keys as turns that name them); short names resolve in the batch."""
        if self.concepts is None or not self.concepts.enabled:
            return {}
        new = [r for r in rows if r.insert and r.item is not None]
        found = self.concepts.extract_many([r.item.content for r in new])  # type: ignore[union-attr]
        cap = self.concepts.settings.max_per_memory
        for i, r in enumerate(new):
            if r.triple:
                ends = [self.concepts.concept_for(r.triple[k]) for k in ("subject", "object")]
                found[i] = merge_mentions([m for m in ends if m is not None], found[i], cap=cap)
        return {r.id: concept_rows(ns, m) for r, m in zip(new, resolve_aliases(found))}

    # -- reading ----------------------------------------------------------------------
    def list_op(
        self,
        ns: str,
        *,
        type: str | None = None,
        min_confidence: float = 0.0,
        include_inactive: bool = False,
        limit: int = 1000,
    ) -> Op[builtins.list[dict[str, Any]]]:
        """Knowledge items of ``ns`` filtered by type and confidence, highest confidence first."""
        if type is not None and type not in KNOWLEDGE_TYPES:
            raise ValidationError(f"type: must be one of {', '.join(KNOWLEDGE_TYPES)}; got {type!r}")
        if not 0.0 <= min_confidence <= 1.0:
            raise ValidationError(f"min_confidence: must be between 0 and 1; got {min_confidence}")
        return (
            yield Read(
                "analysis/list_knowledge",
                dict(
                    ns=ns,
                    type=type,
                    min_confidence=float(min_confidence),
                    include_inactive=include_inactive,
                    limit=int(limit),
                ),
            )
        )

    list = synced(list_op)

    def get_op(self, ns: str, id: str) -> Op[dict[str, Any]]:
        """One item with its sessions and contradiction links; :class:`KnowledgeNotFound` if absent."""
        rows = yield Read("analysis/get_knowledge", dict(ns=ns, id=id))
        if not rows:
            raise KnowledgeNotFound(f"id: no knowledge item {id!r} in namespace {ns!r}")
        return rows[0]

    get = synced(get_op)

    def history_op(self, ns: str, id: str) -> Op[Sequence[dict[str, Any]]]:
        """The chain of item ``id``: it and every item it superseded or was superseded by
        (``SUPERSEDED_BY``), oldest statement first, each with ``valid_from`` / ``valid_until`` and
        ``superseded_by``; :class:`KnowledgeNotFound` if there is no such item."""
        if not isinstance(id, str) or not id.strip():
            raise ValidationError("id: must be a non-empty knowledge item id")
        rows = yield Read("analysis/knowledge_history", dict(ns=ns, id=id))
        if not rows:
            raise KnowledgeNotFound(f"id: no knowledge item {id!r} in namespace {ns!r}")
        return rows  # type: ignore[no-any-return]

    history = synced(history_op)

    # -- the manual path ------------------------------------------------------------------
    def judge_manual_op(self, ns: str, type: str, content: str) -> Op[ManualVerdict]:
        """Judge an item a person adds (``add_knowledge``, a correction) against the stored items near it,
        as an extracted one is (:meth:`_plan`, the store's :class:`~kgmem.analysis.judge.Judge`: the LLM's
        batched adjudication, else the offline rules) — nothing is written here. The same normalised
        text, or a duplicate or paraphrase, lands on the stored item (promoted to manual by the write); a
        contradiction names the stored item the new one supersedes; a paraphrase of an item a person
        removed is a new item (a person's explicit word is not skipped)."""
        item = ExtractedItem(type=type, content=content, confidence=1.0)  # type: ignore[arg-type]
        plan = _Plan()
        try:
            yield from self._plan(ns, [item], plan, "manual", datetime.now(UTC).isoformat())
        except VectorStoreUnavailable as exc:
            # No neighbours to judge against: the same text is still found in the graph, the rest waits
            # for no one (a person's add never fails for want of Chroma; its vector is left pending).
            log.warning("knowledge added without judging it against similar items (Chroma unavailable): %s", exc)
            found = yield Read("analysis/find_knowledge", dict(ns=ns, norms=[item.norm], ids=[]))
            return ManualVerdict(found[0]["id"], True) if found else ManualVerdict(knowledge_id(ns, content), False)
        outcome = plan.outcomes[0]
        landed = plan.rows.get(outcome.id or "")
        same_text = landed is not None and (landed.existing or {}).get("norm") == item.norm
        if outcome.action == "merged" or (outcome.reason == "removed" and same_text):
            return ManualVerdict(str(outcome.id), True, judgement=outcome.judgement)
        # its own new item: the plan's id (a restatement of a superseded value has an id of its own)
        own_id = str(outcome.id) if outcome.action in ("inserted", "contradicted") else knowledge_id(ns, content)
        own = plan.rows.get(own_id)
        contradicted = tuple(c["old_id"] for c in plan.contradictions if c["new_id"] == own_id)
        return ManualVerdict(
            own_id, False, contradicted, outcome.judgement if contradicted else None, own.vector if own else None
        )

    # -- the analysis path ----------------------------------------------------------------
    def apply_op(
        self,
        ns: str,
        session: str,
        items: Sequence[ExtractedItem],
        source: str,
        marks: Sequence[str] = (),
        said_at: str | None = None,
    ) -> Op[builtins.list[Outcome]]:
        """Store one batch of extracted items from ``session``; returns one outcome per item.

        ``marks`` (``kgmem ingest``): ingest keys stored in the same transaction; if one is already
        stored nothing is written and :class:`~kgmem.errors.AlreadyApplied` is raised.
        ``said_at`` (ISO-8601): when the items were stated — new items are valid from then, and a
        contradicted item stated later than they were supersedes them instead (None: now)."""
        said_at = None if said_at is None else normalise_ts(said_at, "said_at")
        plan = _Plan()
        kept: builtins.list[ExtractedItem] = []
        for item in items:
            if item.confidence < self.settings.min_extraction_confidence:
                plan.outcomes.append(Outcome("skipped", item.content, reason="low_extraction_confidence"))
            else:
                kept.append(item)
        if kept:
            yield from self._plan(ns, kept, plan, source, said_at or datetime.now(UTC).isoformat(), session)
            if any(r.seen for r in plan.rows.values()):
                yield from self._write(ns, session, source, plan, list(marks), said_at)
        self._emit(ns, session, source, plan.outcomes)
        return plan.outcomes

    apply = synced(apply_op)

    def _plan(
        self,
        ns: str,
        items: builtins.list[ExtractedItem],
        plan: _Plan,
        source: str,
        said_at: str,
        session: str | None = None,
    ) -> Op[None]:
        """Decide each item (``said_at``: when it was stated; ``session``: whose window it came from)."""
        quoted = [i.contradicts for i in items if i.contradicts]
        vectors = yield Embed([i.content for i in items] + quoted)
        item_vecs, quoted_vecs = vectors[: len(items)], dict(zip(quoted, vectors[len(items) :]))
        texts = [*zip((i.content for i in items), item_vecs), *quoted_vecs.items()]
        found_hits = yield Gather(tuple(self._neighbours(ns, vec) for _, vec in texts))
        hits = {text: found for (text, _), found in zip(texts, found_hits)}
        candidate_ids = sorted({h for found in hits.values() for h, _ in found})
        norms = sorted({i.norm for i in items} | {normalise_text(q) for q in quoted})
        found_rows = yield Read("analysis/find_knowledge", dict(ns=ns, norms=norms, ids=candidate_ids))
        by_id = {r["id"]: r for r in found_rows}
        by_norm = _latest_by_norm(found_rows)
        judged_all = yield from self._verdicts(ns, items, item_vecs, hits, by_id, by_norm, source)
        for index, (item, vec) in enumerate(zip(items, item_vecs)):
            old = self._resolve_contradicted(item, quoted_vecs, hits, by_id, by_norm, plan)
            target, judged, verdicts = self._judge(
                item, vec, hits[item.content], by_id, by_norm, plan, judged_all[index]
            )
            if old is None and judged is not None:
                old = judged
            if old is not None and item.norm == (old.norm or (old.existing or {}).get("norm")):
                plan.outcomes.append(Outcome("skipped", item.content, id=old.id, reason="contradicts_itself"))
                continue
            if target is not None and old is not None and target.id == old.id:
                target = None  # never merge an item into the one it contradicts
            if target is not None and target.existing is not None and not target.existing.get("is_active", True):
                plan.outcomes.append(Outcome("skipped", item.content, id=target.id, reason="removed"))
                continue
            olds = [old] if old is not None else []
            restated = None
            if target is not None and target.existing is not None:
                restated, olds = self._restatement(target, olds, plan, said_at, session, source)
                target = None if restated is not None else target
            if target is None:
                target = self._new_row(ns, item, vec, plan, restated.id if restated is not None else None)
                action = "inserted"
            else:
                action = "merged"
            target.seen += 1
            if target.triple is None and item.has_triple:
                target.triple = _triple(ns, item)
            outcome = Outcome(action, item.content, id=target.id)
            verdict = verdicts.get(olds[0].id if olds else target.id)
            if verdict is not None:
                outcome.judgement = f"{verdict.relation}: {verdict.evidence} (cosine {verdict.similarity:.2f})"
            elif restated is not None:
                outcome.judgement = (
                    f"restates {restated.id}, replaced by {', '.join(o.id for o in olds) or 'nothing current'}"
                )
            for replaced_row in olds:
                plan.contradictions.append({"new_id": target.id, "old_id": replaced_row.id})
            if olds:
                outcome.action, outcome.contradicted_id = "contradicted", olds[0].id
            plan.outcomes.append(outcome)

    def _restatement(
        self, target: _Row, olds: builtins.list[_Row], plan: _Plan, said_at: str, session: str | None, source: str
    ) -> tuple[_Row | None, builtins.list[_Row]]:
        """An item landing on the stored item ``target`` that a later value replaced — noticed (``target`` was
        superseded before ``said_at``) or not (the item contradicts an item stated after ``target``, which is
        then superseded by that item). The old value said again is newer evidence: a new item from ``said_at``
        on supersedes the later values; ``target`` keeps its interval (docs/knowledge-over-time.md). Unless a
        window of a session that also stated one of them said it: a window is dated by its newest turn, so it
        cannot be ordered after them (the session-end re-reading sees both); then it is a re-observation and
        contradicts none of them. Returns (``target`` if restated, else None; the items it contradicts)."""
        existing = target.existing or {}
        if _ended_by(existing, said_at):
            later = [self._row_for(x, plan) for x in _later_values(existing, said_at)]
            replaced = {x["id"] for x in existing.get("successors") or []}
        else:
            later = [o for o in olds if _stated_between(o, target, said_at)]
            replaced = {o.id for o in later}
            if not later:
                return None, olds
        if source in _WINDOWED and any(session in ((r.existing or {}).get("source_sessions") or []) for r in later):
            return None, [o for o in olds if o.id not in replaced]
        if not _ended_by(existing, said_at):  # the unnoticed change: the later value did replace it
            plan.contradictions += [{"new_id": r.id, "old_id": target.id} for r in later]
        known = {o.id for o in olds}
        return target, olds + [r for r in later if r.id not in known]

    def _neighbours(self, ns: str, vector: np.ndarray) -> Op[builtins.list[tuple[str, float]]]:
        hits = yield VectorQuery(ns, KNOWLEDGE_KIND, vector, _NEIGHBOURS)
        return [(h.id, h.similarity) for h in hits if h.similarity >= self.settings.related_cosine]

    def _row_for(self, existing: dict[str, Any], plan: _Plan) -> _Row:
        row = plan.rows.get(existing["id"])
        if row is None:  # built only when missing: this runs for every candidate of every item
            row = plan.rows[existing["id"]] = _Row(id=existing["id"], insert=False, existing=existing)
        return row

    def _verdicts(
        self,
        ns: str,
        items: builtins.list[ExtractedItem],
        vecs: np.ndarray,
        hits: dict[str, builtins.list[tuple[str, float]]],
        by_id: dict[str, dict[str, Any]],
        by_norm: dict[str, dict[str, Any]],
        source: str,
    ) -> Op[builtins.list[dict[str, Verdict]]]:
        """Each item's verdicts by candidate id: its stored neighbours and the batch's earlier items.
        The judge gets every pair of the batch in one call; an extraction call's items judge themselves."""
        out: builtins.list[dict[str, Verdict]] = [{} for _ in items]
        asked: builtins.list[tuple[int, str, Pair]] = []
        for i, (item, vec) in enumerate(zip(items, vecs)):
            if item.norm in by_norm:  # exact text: merged without a judge
                continue
            candidates = [(h, sim, by_id[h]) for h, sim in hits[item.content] if h in by_id]
            for j in range(i):  # an earlier item of this batch may be inserted before this one
                sim = float(np.dot(vec, vecs[j]))
                if items[j].norm != item.norm and sim >= self.settings.related_cosine:
                    candidates.append((knowledge_id(ns, items[j].content), sim, items[j].model_dump()))
            for cid, sim, other in candidates:
                if source in _SELF_JUDGED:
                    restated = sim >= _RESTATED_COSINE
                    out[i][cid] = Verdict("duplicate" if restated else "distinct", "extraction_call", sim)
                else:
                    asked.append((i, cid, Pair(_statement(item.model_dump()), _statement(other), sim)))
        if asked:
            found = yield LocalIO(self.judge.verdicts, ([p for _, _, p in asked],))  # an LLM call blocks
            for (i, cid, _), verdict in zip(asked, found):
                out[i][cid] = verdict
        return out

    def _judge(
        self,
        item: ExtractedItem,
        vec: np.ndarray,
        hits: builtins.list[tuple[str, float]],
        by_id: dict[str, dict[str, Any]],
        by_norm: dict[str, dict[str, Any]],
        plan: _Plan,
        judged: dict[str, Verdict],
    ) -> tuple[_Row | None, _Row | None, dict[str, Verdict]]:
        """The item this one merges into and the one it contradicts, nearest first, with the
        verdicts by id (``judged``: :meth:`_verdicts` of this item)."""
        for row in plan.rows.values():  # first: an earlier item of the batch may restate a stored one
            if row.insert and row.norm == item.norm:
                return row, None, {}
        if item.norm in by_norm:  # exact text: no threshold involved
            return self._row_for(by_norm[item.norm], plan), None, {}
        candidates: builtins.list[tuple[float, str, dict[str, Any], _Row | None]] = []
        for hit_id, sim in hits:  # Chroma is derived, so the graph must know the id
            if hit_id in by_id:
                candidates.append((sim, hit_id, by_id[hit_id], None))
        for row in plan.rows.values():  # new items of this very batch
            if row.insert and row.vector is not None and row.item is not None:
                sim = float(np.dot(vec, row.vector))
                if sim >= self.settings.related_cosine:
                    candidates.append((sim, row.id, row.item.model_dump(), row))
        target = contradicted = None
        verdicts: dict[str, Verdict] = {}
        for _sim, cid, other, in_batch in sorted(candidates, key=lambda c: -c[0]):
            verdict = judged.get(cid)
            if verdict is None:
                continue
            verdicts[cid] = verdict
            if verdict.merges and target is None:
                target = in_batch if in_batch is not None else self._row_for(other, plan)
            elif verdict.relation == "contradiction" and contradicted is None:
                if in_batch is not None:
                    contradicted = in_batch
                elif other.get("is_active", True):  # a removed item is not contradicted again
                    contradicted = self._row_for(other, plan)
        return target, contradicted, verdicts

    def _resolve_contradicted(
        self,
        item: ExtractedItem,
        quoted_vecs: dict[str, np.ndarray],
        hits: dict[str, builtins.list[tuple[str, float]]],
        by_id: dict[str, dict[str, Any]],
        by_norm: dict[str, dict[str, Any]],
        plan: _Plan,
    ) -> _Row | None:
        if not item.contradicts:
            return None
        norm = normalise_text(item.contradicts)
        existing = by_norm.get(norm)
        if existing is None:
            existing = next(
                (by_id[h] for h, sim in hits.get(item.contradicts, []) if h in by_id and sim >= _QUOTE_COSINE), None
            )
        if existing is not None:
            return self._row_for(existing, plan) if existing.get("is_active", True) else None
        vec = quoted_vecs[item.contradicts]
        for row in plan.rows.values():  # an item of this very batch
            if row.insert and (
                row.norm == norm or (row.vector is not None and float(np.dot(vec, row.vector)) >= _QUOTE_COSINE)
            ):
                return row
        log.info("contradicted item not found, ignoring: %r", item.contradicts[:100])
        return None

    def _new_row(self, ns: str, item: ExtractedItem, vec: np.ndarray, plan: _Plan, restates: str | None = None) -> _Row:
        """A new item's row: its id is its normalised text's, and for a restatement of a superseded value
        also the id of the stored item it restates (``restates``; that item keeps its own id and interval).
        Neither the time it was said nor the values it supersedes: two clients restating one value at
        once then write one item, even when one read the change still current and the other (reading
        while the first one's restatement committed) already ended."""
        parts = (item.norm,) if restates is None else (item.norm, "after", restates)
        row = _Row(id=node_id(ns, KNOWLEDGE_KIND, *parts), insert=True, item=item, norm=item.norm, vector=vec)
        plan.rows[row.id] = row
        return row

    def _write(
        self,
        ns: str,
        session: str,
        source: str,
        plan: _Plan,
        marks: builtins.list[str] | None = None,
        said_at: str | None = None,
    ) -> Op[None]:
        now = datetime.now(UTC).isoformat()
        plan.contradictions = order_by_time(plan, said_at or now)
        contradicted = {c["old_id"] for c in plan.contradictions}
        # rows looked at but not used (a removed match, a self-contradiction) are not written
        used = [r for r in plan.rows.values() if r.seen > 0 or r.id in contradicted]
        rows = sorted(used, key=lambda r: not r.insert)  # inserts first: later rows may point at them
        rows = yield from _not_forgotten(ns, rows)
        entity_ids = sorted({r.triple[k] for r in rows if r.triple for k in ("subject_id", "object_id")})
        concepts = yield LocalIO(self._row_concepts, (ns, rows))  # spaCy: CPU, off the event loop
        result = yield Write(
            "analysis/apply_knowledge",
            dict(
                ns=ns,
                now=now,
                said_at=said_at,
                session_id=node_id(ns, "session", session),
                session=session,
                rows=[{**_row_param(r, source), "concepts": concepts.get(r.id)} for r in rows],
                contradictions=plan.contradictions,
                entity_ids=entity_ids,
                marks=marks or [],
                **confidence.params(self.settings),
            ),
        )
        if not result and marks:  # the ingest-mark guard stopped it: nothing was written
            raise AlreadyApplied("some of these knowledge items were already ingested; nothing written")
        result = result[0] if result else {"results": [], "pending_entities": []}  # every row vanished meanwhile
        results = {r["id"]: r for r in result["results"]}
        self._fill_outcomes(plan, results)
        yield from self._write_vectors(
            ns, source, [r for r in rows if results.get(r.id, {}).get("vector_pending")], result["pending_entities"]
        )

    def _fill_outcomes(self, plan: _Plan, results: dict[str, dict[str, Any]]) -> None:
        for outcome in plan.outcomes:
            if (res := results.get(outcome.id or "")) is not None:
                outcome.old_confidence, outcome.new_confidence = res["old"], res["new"]
                if outcome.action == "inserted" and not res["created"]:
                    outcome.action = "merged"  # someone else created it since we looked
            if (old := results.get(outcome.contradicted_id or "")) is None:
                continue
            if old["penalties"] == 0:  # this session already recorded it: a restatement, not news
                outcome.action, outcome.contradicted_id = "merged", None
            elif old["is_manual"]:
                outcome.reason = "contradicted item is manual: not penalised"
            else:
                outcome.reason = f"penalised {old['old']:.3f} -> {old['new']:.3f}"

    def _write_vectors(
        self, ns: str, source: str, rows: builtins.list[_Row], entities: builtins.list[dict[str, Any]]
    ) -> Op[None]:
        # Only this batch's new items carry a vector; older pending ones are left to repair().
        new = [(r.id, r.item, r.vector) for r in rows if r.item is not None and r.vector is not None]
        if new and not (
            yield from self.upsert_or_defer_op(
                ns,
                KNOWLEDGE_KIND,
                [rid for rid, _, _ in new],
                np.stack([vec for _, _, vec in new]),
                [item.content for _, item, _ in new],
                [kinds.KNOWLEDGE.metadata({"type": item.type, "source": source}) for _, item, _ in new],
            )
        ):
            new = []  # still vector_pending in the graph
        if entities:
            names = [e["name"] for e in entities]
            vectors = yield Embed(names)
            if not (
                yield from self.upsert_or_defer_op(
                    ns,
                    ENTITY_KIND,
                    [e["id"] for e in entities],
                    vectors,
                    names,
                    [kinds.ENTITY.metadata(e) for e in entities],
                )
            ):
                entities = []
        if new or entities:
            written = {KNOWLEDGE_KIND: [rid for rid, _, _ in new], ENTITY_KIND: [e["id"] for e in entities]}
            yield from self.vectors_written_op(ns, written)
            yield from self.repair_if_due_op(ns)

    def upsert_or_defer_op(
        self,
        ns: str,
        kind: str,
        ids: builtins.list[str],
        vectors: Any,
        documents: builtins.list[str],
        metadatas: builtins.list[dict[str, Any]],
    ) -> Op[bool]:
        """Write vectors to Chroma; on a Chroma failure leave them ``vector_pending`` (the graph write is
        committed, raising would only invite a double-counting retry) and return False."""
        try:
            yield VectorUpsert(ns, kind, ids, vectors, documents, metadatas)
        except VectorStoreUnavailable as exc:
            self._repair_due.add(ns)
            log.warning(
                "%d %s vector(s) left pending (repaired by the next write or `kgmem reindex --missing-only`): %s",
                len(ids),
                kind,
                exc,
            )
            return False
        return True

    def vectors_written_op(self, ns: str, written: dict[str, builtins.list[str]]) -> Op[None]:
        """Mark the knowledge items' and entities' vectors (``written``: kind -> ids) written; the same
        write reads which ids a forget tombstoned meanwhile, and their vectors go (a forget that planned
        them may have deleted them before this upsert)."""
        rows = yield Write(
            "analysis/vectors_written",
            dict(ns=ns, knowledge_ids=written.get(KNOWLEDGE_KIND, []), entity_ids=written.get(ENTITY_KIND, [])),
        )
        yield from drop_forgotten_op(ns, written, written_gone(rows))

    def repair_if_due_op(self, ns: str) -> Op[None]:
        """After a Chroma failure in ``ns``, the next successful vector write repairs what it left pending."""
        if ns not in self._repair_due:
            return
        self._repair_due.discard(ns)
        try:
            yield from self.repair_op(ns)
        except Exception as exc:  # noqa: BLE001 - best effort; still pending, still repairable
            self._repair_due.add(ns)
            log.warning("repair of pending knowledge vectors failed: %s", exc)

    def _emit(self, ns: str, session: str, source: str, outcomes: builtins.list[Outcome]) -> None:
        revived: set[str] = set()
        for o in outcomes:
            fields: dict[str, Any] = {"session": session, "source": source, "id": o.id, "content": o.content[:100]}
            if o.action == "skipped":
                self.stats.emit("skipped", ns, reason=o.reason, **fields)
                continue
            fields.update(old_confidence=o.old_confidence, new_confidence=o.new_confidence)
            if o.judgement:
                fields["judgement"] = o.judgement
            if o.action == "contradicted":
                self.stats.emit("contradicted", ns, contradicted_id=o.contradicted_id, detail=o.reason, **fields)
            else:
                self.stats.emit(o.action, ns, **fields)
            if (
                o.action == "merged"
                and o.id not in revived
                and o.old_confidence is not None
                and o.new_confidence is not None
                and confidence.revived(o.old_confidence, o.new_confidence)
            ):
                revived.add(o.id or "")
                self.stats.emit("revived", ns, **fields)

    def repair_op(self, ns: str, limit: int = 10_000) -> Op[int]:
        """Write vectors of items/entities still marked ``vector_pending`` (after a Chroma failure)."""
        pending = yield Read("analysis/pending_vectors", dict(ns=ns, limit=limit))
        if not pending:
            return 0
        vecs = yield Embed([p["text"] for p in pending])
        for kind in (KNOWLEDGE_KIND, ENTITY_KIND):
            idx = [i for i, p in enumerate(pending) if p["kind"] == kind]
            if idx:
                meta = [kinds.kind(kind).metadata(pending[i]) for i in idx]
                yield VectorUpsert(
                    ns, kind, [pending[i]["id"] for i in idx], vecs[idx], [pending[i]["text"] for i in idx], meta
                )
        yield from self.vectors_written_op(
            ns, {kind: [p["id"] for p in pending if p["kind"] == kind] for kind in (KNOWLEDGE_KIND, ENTITY_KIND)}
        )
        return len(pending)


def order_by_time(plan: _Plan, said_at: str) -> list[dict[str, str]]:
    """The plan's contradiction pairs with ``old_id`` the statement made first: a batch item (said at
    ``said_at``) contradicting a stored item stated *later* (out-of-order ingest of an old conversation)
    does not supersede it — the pair is turned round, so the batch item is the one penalised and stored
    as already superseded. Its outcome says so."""
    ordered = []
    for pair in plan.contradictions:
        old = plan.rows.get(pair["old_id"])
        stored_from = (old.existing or {}).get("valid_from") if old is not None and not old.insert else None
        if stored_from is not None and str(stored_from) > said_at:
            ordered.append({"new_id": pair["old_id"], "old_id": pair["new_id"]})
            for outcome in plan.outcomes:
                if outcome.id == pair["new_id"] and outcome.contradicted_id == pair["old_id"]:
                    outcome.reason = f"stated before {pair['old_id']} (valid from {stored_from}): stored as superseded"
        else:
            ordered.append(pair)
    return ordered


def _latest_by_norm(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Stored items by normalised text. A value said again after it was replaced is a second item with
    the same text: the current one (else the latest stated) stands for the text."""
    out: dict[str, dict[str, Any]] = {}
    for row in rows:
        seen = out.get(row["norm"])
        if seen is None or _recency(row) > _recency(seen):
            out[row["norm"]] = row
    return out


def _recency(row: dict[str, Any]) -> tuple[bool, str]:
    return row.get("valid_until") is None, str(row.get("valid_from") or "")


def _ended_by(existing: dict[str, Any], said_at: str) -> bool:
    """Was the stored item replaced (``valid_until``) no later than ``said_at``? Then saying it at
    ``said_at`` is not a re-observation of a current fact but the old value stated again."""
    until = existing.get("valid_until")
    return until is not None and str(until) <= said_at


def _stated_between(row: _Row, earlier: _Row, said_at: str) -> bool:
    """Was the stored item of ``row`` stated after the stored item of ``earlier`` and by ``said_at``?"""
    since, before = (row.existing or {}).get("valid_from"), (earlier.existing or {}).get("valid_from")
    return row.existing is not None and before is not None and since is not None and str(before) < str(since) <= said_at


def _later_values(existing: dict[str, Any], said_at: str) -> list[dict[str, Any]]:
    """What replaced a superseded item (its ``SUPERSEDED_BY`` successors with other text) that still held
    at ``said_at`` or was stated after it: the values a restatement at ``said_at`` contradicts (one stated
    after it is turned round by :func:`order_by_time`: it supersedes the restatement)."""
    return [
        x
        for x in existing.get("successors") or []
        if x.get("is_active") is not False and (x.get("valid_until") is None or str(x["valid_until"]) > said_at)
    ]


def _not_forgotten(ns: str, rows: list[_Row]) -> Op[list[_Row]]:
    """``rows`` without the items a forget tombstoned, or whose triple names a forgotten entity
    (docs/forgetting.md: a late or re-ingested extraction does not bring them back)."""

    def ids(r: _Row) -> list[str]:
        triple = r.triple or {}
        return [r.id, *(str(triple[k]) for k in ("subject_id", "object_id") if triple.get(k))]

    gone = yield from tombstoned_op(ns, [i for r in rows for i in ids(r) if i])
    return [r for r in rows if not any(i in gone for i in ids(r))] if gone else rows


def _statement(item: dict[str, Any]) -> Statement:
    """What the judge compares of a stored item or an extracted one: its type too, since a
    correction replaces the value it corrects even under a many-valued verb ("No, the build uses Maven.")."""
    return Statement(
        str(item.get("content") or ""), item.get("subject"), item.get("predicate"), item.get("object"), item.get("type")
    )


def _triple(ns: str, item: ExtractedItem) -> dict[str, str]:
    assert item.subject and item.predicate and item.object
    return {
        "subject_id": entity_id(ns, item.subject),
        "subject": item.subject,
        "object_id": entity_id(ns, item.object),
        "object": item.object,
        "predicate": item.predicate.lower(),
    }


def _row_param(row: _Row, source: str) -> dict[str, Any]:
    item = row.item
    return {
        "id": row.id,
        "insert": row.insert,
        "type": item.type if item else None,
        "content": item.content if item else None,
        "norm": row.norm,
        "source": source,
        "subject": item.subject if item else None,
        "predicate": item.predicate.lower() if item and item.predicate else None,
        "object": item.object if item else None,
        "extracted_confidence": item.confidence if item else None,
        "seen": row.seen,
        "triple": row.triple,
    }

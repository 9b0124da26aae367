"""What a person does to knowledge (``kgmem learnings add|edit|remove|reset`` and the client).

Manual items have confidence 1.0 and ``is_manual = true``: the analysis path never
boosts, decays or penalises them. Removal is soft (``is_active = false``): the node,
its history and its vector stay, so dedup still recognises it and a paraphrase of a
removed item is not learnt again.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

import numpy as np

from kgmem import kinds
from kgmem.analysis.events import AnalysisStats
from kgmem.analysis.schema import KNOWLEDGE_TYPES, MAX_CONTENT_CHARS, normalise_text
from kgmem.analysis.store import KNOWLEDGE_KIND, KnowledgeStore
from kgmem.errors import KnowledgeNotFound, ValidationError
from kgmem.graph.store import UNREACHABLE, GraphStore
from kgmem.ids import node_id
from kgmem.runner import Embed, LocalIO, Op, SyncIO, Write, synced
from kgmem.spool import KNOWLEDGE, SpoolReplayer

log = logging.getLogger(__name__)


def _now() -> str:
    return datetime.now(UTC).isoformat()


def _check_content(content: Any) -> str:
    if not isinstance(content, str) or len(content.strip()) < 3:
        raise ValidationError("content: must be a string of at least 3 characters")
    if len(content) > MAX_CONTENT_CHARS:
        raise ValidationError(f"content: longer than {MAX_CONTENT_CHARS} characters")
    return content.strip()


def _check_item(type: Any, content: Any) -> str:
    if type not in KNOWLEDGE_TYPES:
        raise ValidationError(f"type: must be one of {', '.join(KNOWLEDGE_TYPES)}; got {type!r}")
    return _check_content(content)


class Curator:
    """Manual knowledge operations on top of a :class:`KnowledgeStore`.

    Args:
        store: the knowledge store.
        stats: counters (``knowledges_spooled``) and event lines.
        replayer: the client's spool replayer: an add is spooled while Neo4j is unreachable and
            replayed by it (``None``: raise instead — ``learning.strict``, or no spool).
    """

    def __init__(self, store: KnowledgeStore, stats: AnalysisStats, replayer: SpoolReplayer | None = None) -> None:
        self.store = store
        self.stats = stats
        self.replayer = replayer
        if replayer is not None:
            replayer.register(KNOWLEDGE, self._replay, transactional=False)

    @property
    def io(self) -> SyncIO:
        """The store's sync backends, which the sync methods made by ``synced`` run on."""
        return self.store.io

    def add_op(self, ns: str, type: str, content: str) -> Op[dict[str, Any]]:
        """Add a manual item (1.0); an existing item with the same normalised text is promoted.

        While Neo4j is unreachable the add is spooled (replayed once it answers again) and the
        returned item carries ``spooled: True``."""
        content = _check_item(type, content)
        try:
            return (yield from self.write_manual_op(ns, type, content))
        except UNREACHABLE as exc:
            if self.replayer is None:
                raise
            yield from self.replayer.divert_op(ns, [{"type": type, "content": content}], KNOWLEDGE, exc)
            self.stats.count(ns, f"{KNOWLEDGE}s_spooled", 1)
            return {
                "id": node_id(ns, KNOWLEDGE_KIND, normalise_text(content)),
                "type": type,
                "content": content,
                "confidence": 1.0,
                "source": "manual",
                "is_manual": True,
                "is_active": True,
                "spooled": True,
            }

    add = synced(add_op)

    def _replay(self, ns: str, events: list[dict[str, Any]], _cursor: Any) -> Op[bool]:
        for e in events:  # idempotent: a manual add of the same text promotes the same item
            yield from self.write_manual_op(ns, e["type"], e["content"])
        return True

    def write_manual_op(self, ns: str, type: str, content: str) -> Op[dict[str, Any]]:
        """The graph and vector writes of :meth:`add` (validated input); raises while Neo4j is unreachable.

        The item is judged first (the store's judge, as an extracted item is): a duplicate or
        paraphrase promotes the stored item; a contradiction supersedes the stored item
        (``valid_until``, ``SUPERSEDED_BY``, the confidence penalty unless it is manual) —
        docs/judging.md."""
        norm = normalise_text(content)
        verdict = yield from self.store.judge_manual_op(ns, type, content)
        concepts = yield LocalIO(self.store.concepts_of, (ns, content))  # spaCy: CPU, off the event loop
        rows = yield Write(
            "analysis/add_manual",
            dict(
                ns=ns,
                id=verdict.id,
                type=type,
                content=content,
                norm=norm,
                now=_now(),
                concepts=concepts,
                contradicts=list(verdict.contradicts),
                penalty=self.store.settings.contradiction_penalty,
                floor=self.store.settings.confidence_floor,
            ),
        )
        row = rows[0]
        if row["vector_pending"]:
            yield from self._write_vector_op(ns, row, verdict.vector if row["content"] == content else None)
        fields: dict[str, Any] = {"source": "manual", "id": verdict.id, "content": content[:100], "new_confidence": 1.0}
        if verdict.judgement:
            fields["judgement"] = verdict.judgement
        self.stats.emit("inserted" if row["created"] else "merged", ns, **fields)
        for old in row["contradicted"]:
            detail = (
                "contradicted item is manual: not penalised"
                if old["is_manual"]
                else f"penalised {old['old']:.3f} -> {old['new']:.3f}"
            )
            self.stats.emit("contradicted", ns, contradicted_id=old["id"], detail=detail, **fields)
        return (yield from self.store.get_op(ns, verdict.id))

    @property
    def _graph(self) -> GraphStore:
        """The synchronous graph the edits below write to (a store built for the async client has none)."""
        graph = self.store.graph
        if graph is None:
            raise RuntimeError("this knowledge store has no synchronous graph: curate through the async ops")
        return graph

    def edit(self, ns: str, id: str, content: str) -> dict[str, Any]:
        """Replace an item's text (id, confidence and history stay); re-embeds it."""
        content = _check_content(content)
        norm = normalise_text(content)
        clash = [r for r in self._graph.read("analysis/find_knowledge", ns=ns, norms=[norm], ids=[]) if r["id"] != id]
        if clash:
            raise ValidationError(f"content: the same text already exists as item {clash[0]['id']}")
        rows = self._graph.write(
            "analysis/edit_knowledge",
            ns=ns,
            id=id,
            content=content,
            norm=norm,
            now=_now(),
            concepts=self.store.concepts_of(ns, content),
        )
        if not rows:
            raise KnowledgeNotFound(f"id: no knowledge item {id!r} in namespace {ns!r}")
        self._write_vector(ns, rows[0])
        return self.store.get(ns, id)

    def remove(self, ns: str, id: str) -> dict[str, Any]:
        """Soft-remove: ``is_active = false``; nothing is deleted."""
        return self._set_state(ns, id, is_active=False)

    def reset(self, ns: str, id: str) -> dict[str, Any]:
        """Back to the initial confidence (0.5) as an automatic item, and active again."""
        return self._set_state(
            ns, id, is_active=True, confidence=self.store.settings.initial_confidence, is_manual=False
        )

    def _set_state(self, ns: str, id: str, **state: Any) -> dict[str, Any]:
        params = {"is_active": None, "confidence": None, "is_manual": None, "concepts": None, **state}
        if state.get("is_active") is False:
            params["concepts"] = [] if self.store.concepts is not None else None
        elif state.get("is_active") is True:  # active again: it mentions its concepts again
            params["concepts"] = self.store.concepts_of(ns, self.store.get(ns, id)["content"])
        rows = self._graph.write("analysis/set_knowledge_state", ns=ns, id=id, now=_now(), **params)
        if not rows:
            raise KnowledgeNotFound(f"id: no knowledge item {id!r} in namespace {ns!r}")
        log.info("knowledge %s in %s set to %s", id, ns, state)
        return self.store.get(ns, id)

    def _write_vector_op(self, ns: str, row: dict[str, Any], vector: Any = None) -> Op[None]:
        if vector is None:
            vector = yield Embed([row["content"]])
        else:
            vector = np.asarray(vector).reshape(1, -1)
        if (
            yield from self.store.upsert_or_defer_op(
                ns, KNOWLEDGE_KIND, [row["id"]], vector, [row["content"]], [kinds.KNOWLEDGE.metadata(row)]
            )
        ):
            yield from self.store.vectors_written_op(ns, {KNOWLEDGE_KIND: [row["id"]]})
            yield from self.store.repair_if_due_op(ns)

    _write_vector = synced(_write_vector_op)

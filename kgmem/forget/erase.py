"""The eraser: a plan's items deleted in batches, each batch one graph transaction (UNWIND) and, at
the same time, its vectors' Chroma deletes in smaller batches, so a forget of a long session never
holds a lock — or, for embedded Chroma, the GIL — longer than a batch."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from kgmem.forget.plan import LABELS, VECTOR_KINDS, Plan
from kgmem.runner import Gather, LocalIO, Op, Read, VectorCount, VectorDelete, VectorGet, Write


@dataclass
class Counts:
    """What a forget erased (or, in a dry run, would erase), per store."""

    graph: Counter = field(default_factory=Counter)
    vectors: Counter = field(default_factory=Counter)
    retrieval: Counter = field(default_factory=Counter)
    spool: Counter = field(default_factory=Counter)
    analysis: Counter = field(default_factory=Counter)

    def add(self, other: Counts) -> None:
        for name in ("graph", "vectors", "retrieval", "spool", "analysis"):
            getattr(self, name).update(getattr(other, name))

    def as_dict(self) -> dict[str, dict[str, int]]:
        return {
            name: {k: int(v) for k, v in sorted(getattr(self, name).items()) if v}
            for name in ("graph", "vectors", "retrieval", "spool", "analysis")
        }

    @property
    def total(self) -> int:
        return sum(sum(c.values()) for c in (self.graph, self.vectors, self.retrieval, self.spool, self.analysis))


#: The longest pause between two Chroma deletes of a batch (about one search of another session).
GIL_PAUSE_S = 0.05


def chunks(items: Sequence[str], size: int) -> list[list[str]]:
    return [list(items[i : i + size]) for i in range(0, len(items), size)]


def count_op(plan: Plan, batch: int, vector_batch: int) -> Op[Counts]:
    """A dry run's counts: the plan's nodes, their relationships and vectors, the retrieval state
    (vectors read ``vector_batch`` at a time, as :func:`erase_op` deletes them)."""
    counts = Counts()
    if plan.scope.kind == "everything":
        counts.graph.update({label: n for label, n in plan.namespace.items()})
        for kind in VECTOR_KINDS.values():
            counts.vectors[kind] = yield VectorCount(plan.ns, kind)
        return counts
    counts.graph.update(plan.counts())
    rows = [{"label": label, "id": i} for label in LABELS for i in plan.items[label]]
    for part in range(0, len(rows), batch):
        got = yield Read("forget/count_relationships", {"ns": plan.ns, "rows": rows[part : part + batch]})
        counts.graph["relationships"] += int(got[0]["relationships"]) if got else 0
    counts.graph["provenance_removed"] = len(plan.knowledge_kept) + len(plan.errors_kept)
    for label, kind in VECTOR_KINDS.items():
        for ids in chunks(plan.items[label], vector_batch):
            counts.vectors[kind] += len((yield VectorGet(plan.ns, kind, ids)))
    for i, ids in enumerate(chunks(plan.ids, batch) or [[]]):
        got = yield Read("forget/count_retrieval_state", _state_params(plan, ids, first=i == 0))
        counts.retrieval.update({k: int(v) for k, v in got[0].items()})
    return counts


def _state_params(plan: Plan, ids: list[str], *, first: bool) -> dict[str, Any]:
    # The sessions' and the name's state once; the ids' in every batch.
    return {
        "ns": plan.ns,
        "sessions": plan.sessions if first else [],
        "ids": ids,
        "needle": plan.needle if first else None,
    }


def erase_op(plan: Plan, batch: int, vector_batch: int) -> Op[Counts]:
    """Erase ``plan``: item batches of ``batch`` (graph and, concurrently, their vectors, ``vector_batch``
    per Chroma delete: embedded Chroma holds the GIL while it deletes, so the process's searches wait
    for one delete), a session's provenance on what stays, the retrieval state naming them, and for
    ``everything`` the rest of the namespace. Idempotent: a resumed forget runs it again and erases
    what is left."""
    counts = Counts()
    for label in LABELS:
        if label == "Session":
            yield from _unlink(plan, counts)
            yield from _retrieval_state(plan, batch, counts)
        kind = VECTOR_KINDS.get(label)
        for ids in chunks(plan.items[label], batch):
            graph = _erase_batch(plan.ns, label, ids)
            if kind is None:
                rows = yield from graph
            else:  # the batch's vectors go while Neo4j erases its nodes: every id, so a vector whose
                # node was already gone (drift, a resume) goes too
                rows, _ = yield Gather((graph, _delete_vectors(plan.ns, kind, ids, vector_batch)))
            _count_batch(rows, counts)
    if plan.scope.kind == "everything":
        yield from _erase_namespace(plan, batch, counts)
    return counts


def _erase_batch(ns: str, label: str, ids: list[str]) -> Op[list[dict[str, Any]]]:
    return (yield Write("forget/erase_batch", {"ns": ns, "rows": [{"label": label, "id": i} for i in ids]}))


def _delete_vectors(ns: str, kind: str, ids: list[str], vector_batch: int) -> Op[None]:
    parts = chunks(ids, vector_batch)
    for i, part in enumerate(parts):
        started = time.monotonic()
        yield VectorDelete(ns, kind, part)
        if i + 1 < len(parts):
            # Embedded Chroma held the GIL for the whole delete: the process's other threads get it
            # for as long (up to a typical search) before the next one, so a search waits for one
            # delete, not for every delete of the batch back to back.
            yield LocalIO(time.sleep, (min(time.monotonic() - started, GIL_PAUSE_S),))


def _count_batch(rows: list[dict[str, Any]], counts: Counts) -> None:
    if not rows:
        return
    row = rows[0]
    for erased in row["erased"]:
        if erased["label"] is not None:
            counts.graph[erased["label"]] += int(erased["n"])
            kind = VECTOR_KINDS.get(erased["label"])
            if kind is not None:
                counts.vectors[kind] += int(erased["vectors"] or 0)
    counts.graph["relationships"] += int(row["relationships"])
    counts.graph["concepts"] += int(row["concepts"])


def _unlink(plan: Plan, counts: Counts) -> Op[None]:
    if plan.scope.kind != "session" or plan.session_key is None:
        return
    rows = yield Write(
        "forget/unlink_session",
        {
            "ns": plan.ns,
            "session_id": plan.target,
            "key": plan.session_key,
            "knowledge": plan.knowledge_kept,
            "errors": plan.errors_kept,
        },
    )
    if rows:
        counts.graph["provenance_removed"] += int(rows[0]["provenance"]) + int(rows[0]["occurrences"])
        counts.graph["relationships"] += int(rows[0]["contradictions"])


def _retrieval_state(plan: Plan, batch: int, counts: Counts) -> Op[None]:
    for i, ids in enumerate(chunks(plan.ids, batch) or [[]]):
        rows = yield Write("forget/erase_retrieval_state", _state_params(plan, ids, first=i == 0))
        if rows:
            counts.retrieval.update({k: int(v) for k, v in rows[0].items()})


def _erase_namespace(plan: Plan, batch: int, counts: Counts) -> Op[None]:
    """Everything else of the namespace (concepts, tools, functions, marks, retrieval state ...), in
    batches, and what is left in its vector collections (vectors whose node was already gone)."""
    while True:
        rows = yield Write("forget/erase_namespace_batch", {"ns": plan.ns, "batch": batch})
        if not rows:
            break
        for row in rows:
            label = row["label"]
            if label in ("KgmemQuery", "KgmemOverlay", "KgmemSessionState"):
                key = {"KgmemQuery": "queries", "KgmemOverlay": "overlays", "KgmemSessionState": "session_states"}
                counts.retrieval[key[label]] += int(row["n"])
            else:
                counts.graph[label] += int(row["n"])
            counts.graph["relationships"] += int(row["degree"])

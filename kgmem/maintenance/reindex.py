"""`kgmem reindex`: rebuild the Chroma collections of a namespace from the graph (the source of truth).

For every Chroma kind (error, fix, knowledge, message, entity) the nodes with text are
read page by page (id order); each page is embedded in one batch and upserted in one
call, then its ``vector_pending`` flags are cleared in one statement. A full run also
deletes vectors whose node no longer exists. ``missing_only`` embeds just the nodes
that are flagged pending or absent from Chroma. Either run also recounts every Concept's
``df`` from its MENTIONS edges (docs/concept-graph.md).

Drift a forget left (docs/forgetting.md): given the client's forgetter, a run first finishes the
namespace's interrupted forgets (node and vector of every id they tombstoned); either run deletes
vectors whose node is gone and never embeds a node a forget tombstoned (its vector goes), counted.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kgmem import kinds
from kgmem.graph import GraphStore
from kgmem.maintenance.allowlist import VECTOR_KINDS
from kgmem.runner import SyncIO, run
from kgmem.tombstones import tombstoned_op
from kgmem.vectors import Embedder, VectorStore

if TYPE_CHECKING:
    from kgmem.forget import Forgetter

log = logging.getLogger(__name__)

PAGE = 256


@dataclass
class KindStats:
    """Per Chroma kind: nodes with text, vectors written, of which repairs, stale vectors removed
    (their node is gone), and nodes a forget tombstoned (not embedded; their vector removed)."""

    nodes: int = 0
    embedded: int = 0
    repaired: int = 0
    removed: int = 0
    forgotten: int = 0


@dataclass
class ReindexSummary:
    ns: str
    missing_only: bool
    kinds: dict[str, KindStats] = field(default_factory=dict)
    concept_df_fixed: int = 0  # Concept.df values recounted from MENTIONS (kgmem/concepts)
    concept_orphans: int = 0  # Concepts no memory mentions any more, deleted
    forgets_finished: int = 0  # interrupted forgets of the namespace finished first

    @property
    def repaired(self) -> int:
        return sum(k.repaired for k in self.kinds.values())


def metadata(kind: str, row: dict[str, Any]) -> dict[str, str | int | float | bool]:
    """The Chroma metadata the writers of ``kind`` store (one definition: kgmem/kinds.py)."""
    return kinds.kind(kind).metadata(row)


def embedding_text(kind: str, row: dict[str, Any]) -> str:
    """What the writer of ``kind`` embeds (it may differ from the stored document)."""
    return kinds.kind(kind).embedding_text(row)


def total_nodes(graph: GraphStore, ns: str) -> int:
    """Nodes with text across all kinds (for a progress bar)."""
    return sum(graph.read(f"maintenance/reindex/{kind}_count", ns=ns)[0]["n"] for kind in VECTOR_KINDS)


def reindex(
    graph: GraphStore,
    vectors: VectorStore,
    embedder: Embedder,
    ns: str,
    *,
    missing_only: bool = False,
    page: int = PAGE,
    progress: Callable[[int], None] | None = None,
    forgetter: Forgetter | None = None,
) -> ReindexSummary:
    """Rebuild (or, with ``missing_only``, repair) the vectors of namespace ``ns``; with ``forgetter``
    (the client's), finish its interrupted forgets first."""
    summary = ReindexSummary(ns=ns, missing_only=missing_only)
    if forgetter is not None:
        summary.forgets_finished = len(run(forgetter.resume_op(ns), SyncIO(graph, vectors, embedder)))
    for kind in VECTOR_KINDS:
        summary.kinds[kind] = _reindex_kind(graph, vectors, embedder, ns, kind, missing_only, page, progress)
    # The graph's own derived numbers: each Concept's df is recounted from its MENTIONS edges.
    counts = graph.write("concepts/refresh_df", ns=ns)
    if counts:
        summary.concept_df_fixed, summary.concept_orphans = counts[0]["fixed"], counts[0]["orphans"]
    log.info("reindex %s: %s", ns, {k: vars(v) for k, v in summary.kinds.items()})
    return summary


def _reindex_kind(graph, vectors, embedder, ns, kind, missing_only, page, progress) -> KindStats:
    stats = KindStats()
    if not missing_only:
        vectors.adopt_model(ns, kind)  # vectors of another model cannot be kept: rebuild from scratch
    seen: set[str] = set()
    after = ""
    while True:
        rows = graph.read(f"maintenance/reindex/{kind}_nodes", ns=ns, after=after, limit=page)
        if not rows:
            break
        after = rows[-1]["id"]
        ids = [r["id"] for r in rows]
        seen.update(ids)
        stats.nodes += len(rows)
        present = _present(vectors, ns, kind, ids)
        gone = run(tombstoned_op(ns, ids), SyncIO(graph, vectors, embedder))
        if gone:  # an interrupted forget's node: never embedded again, its vector goes
            vectors.delete(ns, kind, sorted(gone))
            stats.forgotten += len(gone)
            rows = [r for r in rows if r["id"] not in gone]
        absent = {r["id"] for r in rows if r["pending"] or r["id"] not in present}
        todo = [r for r in rows if r["id"] in absent] if missing_only else rows
        if todo:
            vecs = embedder.embed([embedding_text(kind, r) for r in todo])
            vectors.upsert(
                ns, kind, [r["id"] for r in todo], vecs, [r["text"] for r in todo], [metadata(kind, r) for r in todo]
            )
            graph.write(f"maintenance/reindex/{kind}_done", ns=ns, ids=[r["id"] for r in todo])
            stats.embedded += len(todo)
            stats.repaired += len(absent)
        if progress:
            progress(len(rows))
    stats.removed = _remove_stale(vectors, ns, kind, seen)  # vectors without a node (both modes)
    return stats


def _present(vectors: VectorStore, ns: str, kind: str, ids: list[str]) -> set[str]:
    coll = vectors.collection(ns, kind, create=False)
    if coll is None:
        return set()
    return set(coll.get(ids=ids, include=[])["ids"])


def _remove_stale(vectors: VectorStore, ns: str, kind: str, keep: set[str]) -> int:
    """Delete vectors whose node is gone from the graph (Chroma must mirror the graph)."""
    coll = vectors.collection(ns, kind, create=False)
    if coll is None:
        return 0
    stale = [i for i in coll.get(include=[])["ids"] if i not in keep]
    for i in range(0, len(stale), 1000):
        vectors.delete(ns, kind, stale[i : i + 1000])
    return len(stale)

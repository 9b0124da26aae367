"""The retrieval service behind ``KGMem.search / context / feedback``.

It picks the retriever for a config (one class per strategy), assigns each search
a ``query_id`` and remembers, for a bounded number of recent queries, which items
were returned — that is what feedback judges (retrieved-not-used gets −0.1).
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from typing import Any

from kgmem.errors import ValidationError
from kgmem.graph import GraphStore
from kgmem.retrieval import feedback as fb
from kgmem.retrieval.config import KIND_LABELS, SearchConfig, preset
from kgmem.retrieval.context import Context, render
from kgmem.retrieval.graph import GraphRAGRetriever
from kgmem.retrieval.hybrid import HybridRetriever
from kgmem.retrieval.keyword import KeywordRetriever
from kgmem.retrieval.scope import Scope
from kgmem.retrieval.types import SearchResult
from kgmem.retrieval.vector import VectorRetriever
from kgmem.vectors import Embedder, VectorStore

log = logging.getLogger(__name__)

QUERY_LOG_SIZE = 10_000


class UnknownQuery(ValidationError):
    """``feedback`` named a query_id this process did not issue (or has forgotten)."""


class Retrieval:
    """Search, context rendering and feedback over one graph + vector store.

    Args:
        graph, vectors, embedder: the shared backends.
        default_preset: preset used when a call names none (``settings.retrieval.preset``).
    """

    def __init__(self, graph: GraphStore, vectors: VectorStore, embedder: Embedder, default_preset: str = "balanced",
                 overrides: dict[str, Any] | None = None) -> None:
        self.graph = graph
        self.vectors = vectors
        self.embedder = embedder
        self.default_preset = default_preset
        self.overrides = dict(overrides or {})
        preset(default_preset).with_overrides(**self.overrides)  # fail at start-up on a bad name or value
        self._executor = ThreadPoolExecutor(max_workers=2, thread_name_prefix="kgmem-keyword")
        self._queries: OrderedDict[str, tuple[str, list[tuple[str, str]]]] = OrderedDict()
        self._lock = threading.Lock()

    def _preset(self, name: str | None) -> SearchConfig:
        base = preset(name, self.default_preset)
        return base.with_overrides(**self.overrides) if self.overrides else base

    def retriever(self, config: SearchConfig):
        """The retriever class for ``config``'s legs (vector, keyword, hybrid or Graph RAG)."""
        vector = VectorRetriever(self.vectors, self.embedder, config)
        keyword = KeywordRetriever(self.graph, config)
        if not config.use_keyword and not config.use_graph and not config.use_quality:
            return vector
        if not config.use_vector and not config.use_graph and not config.use_quality:
            return keyword
        hybrid = HybridRetriever(vector, keyword, config, self._executor)
        if not config.use_graph and not config.use_quality:
            return hybrid
        return GraphRAGRetriever(hybrid, self.graph, config)

    def search(
        self,
        query: str,
        ns: str,
        k: int = 10,
        session: str | None = None,
        kinds: Any = None,
        preset_name: str | None = None,
        config: SearchConfig | None = None,
    ) -> SearchResult:
        """Run one search; see :meth:`kgmem.KGMem.search`."""
        if not isinstance(query, str) or not query.strip():
            raise ValidationError("query: must be a non-empty string")
        scope = Scope.build(ns, k, kinds, session)
        cfg = config or self._preset(preset_name)
        retriever = self.retriever(cfg)
        t0 = time.perf_counter()
        hits = retriever.search(query, scope)
        timings = dict(getattr(retriever, "last_timings", {}))
        timings["total_ms"] = (time.perf_counter() - t0) * 1000
        query_id = uuid.uuid4().hex
        with self._lock:
            self._queries[query_id] = (ns, [(h.id, h.kind) for h in hits])
            while len(self._queries) > QUERY_LOG_SIZE:
                self._queries.popitem(last=False)
        return SearchResult(query_id=query_id, query=query, ns=ns, preset=cfg.name, hits=hits, timings_ms=timings)

    def context(self, query: str, ns: str, max_tokens: int = 1000, **search_kwargs: Any) -> Context:
        """Search, then render the hits as a prompt block with numbered citations."""
        if not isinstance(max_tokens, int) or max_tokens < 20:
            raise ValidationError("max_tokens: must be an integer >= 20")
        return render(self.search(query, ns, **search_kwargs), max_tokens)

    def feedback(self, query_id: str, used: Any = (), outcome: str | float = "included") -> list[dict[str, Any]]:
        """Update the usage posteriors of a query's hits; returns the new (id, alpha, beta) rows."""
        if isinstance(used, str) or hasattr(used, "id"):
            used = [used]
        used = [getattr(u, "id", u) for u in used]  # ids or the SearchHit objects themselves
        with self._lock:
            entry = self._queries.get(query_id)
        if entry is None:
            raise UnknownQuery(f"query_id: {query_id!r} is not a recent query of this client")
        ns, retrieved = entry
        changes = fb.updates(retrieved, used, outcome)
        rows = self.graph.write(
            "retrieval/feedback", ns=ns, now=datetime.now(timezone.utc).isoformat(),
            prior_alpha=1.0, prior_beta=1.0,
            updates=[{"id": u.id, "label": KIND_LABELS[u.kind], "delta": u.delta} for u in changes],
        )
        log.debug("feedback %s: %d updates", query_id, len(rows))
        return rows

    def close(self) -> None:
        self._executor.shutdown(wait=False)

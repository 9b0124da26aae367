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

import neo4j

from kgmem.errors import BackendUnavailable, ValidationError
from kgmem.graph import GraphStore
from kgmem.graph.keys import bounded_optional, check_namespace
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

    def retriever(self, config: SearchConfig, vector: VectorRetriever | None = None,
                  keyword: KeywordRetriever | None = None):
        """The retriever class for ``config``'s legs (vector, keyword, hybrid or Graph RAG)."""
        vector = vector or VectorRetriever(self.vectors, self.embedder, config)
        keyword = keyword or KeywordRetriever(self.graph, config)
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
        scope = Scope.build(check_namespace(ns), k, kinds, bounded_optional(session))
        cfg = config or self._preset(preset_name)
        vector, keyword = _GuardedVector(self.vectors, self.embedder, cfg), KeywordRetriever(self.graph, cfg)
        retriever = self.retriever(cfg, vector, keyword)
        t0 = time.perf_counter()
        failed: dict[str, str] = {}
        try:
            hits = retriever.search(query, scope)
        except (BackendUnavailable, neo4j.exceptions.Neo4jError, neo4j.exceptions.DriverError) as exc:
            # The graph is gone mid-search (expansion / hydration): answer from Chroma alone.
            if not cfg.use_vector or retriever is vector or vector.failure:
                raise BackendUnavailable(f"no retrieval leg answered: {exc}") from exc
            log.warning("search degraded to the vector leg: %s", exc)
            failed["graph"] = f"{type(exc).__name__}: {exc}"[:300]
            retriever = vector
            hits = vector.search(query, scope)
        for leg in (vector, keyword):
            if leg.failure:
                failed[leg.leg] = leg.failure
        used = [leg for leg, on in ((vector, cfg.use_vector), (keyword, cfg.use_keyword)) if on]
        if used and all(leg.failure for leg in used):
            raise BackendUnavailable("no retrieval leg answered: " + "; ".join(failed.values()))
        timings = dict(getattr(retriever, "last_timings", {}))
        timings["total_ms"] = (time.perf_counter() - t0) * 1000
        query_id = uuid.uuid4().hex
        with self._lock:
            self._queries[query_id] = (ns, [(h.id, h.kind) for h in hits])
            while len(self._queries) > QUERY_LOG_SIZE:
                self._queries.popitem(last=False)
        return SearchResult(query_id=query_id, query=query, ns=ns, preset=cfg.name, hits=hits, timings_ms=timings,
                            failed_legs=failed)

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


class _GuardedVector(VectorRetriever):
    """The vector leg of one search: a Chroma failure leaves it empty (the search goes on with the
    other legs, and says so in ``SearchResult.failed_legs``) instead of failing the search."""

    failure: str | None = None

    def candidates(self, query, scope, vector=None):  # noqa: ANN001 - same signature as the base class
        try:
            return super().candidates(query, scope, vector)
        except ValidationError:
            raise
        except Exception as exc:  # noqa: BLE001 - chromadb raises many types (InternalError, sqlite errors, ...)
            self.failure = f"{type(exc).__name__}: {exc}"[:300]
            log.warning("vector leg failed; searching without it: %s", self.failure)
            return []

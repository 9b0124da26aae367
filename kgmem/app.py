"""The composition root: the expensive resources, built once and injected everywhere.

:class:`Engines` owns (or is handed) the Neo4j driver, the Chroma client and the embedder
and builds each on first use — a CLI command that only reads the graph never opens Chroma
or loads the model. :class:`~kgmem.KGMem` and the CLI commands both take their stores from
here instead of constructing them by hand (docs/architecture.md).

The first connect — the first use of :attr:`Engines.graph` — has one named step besides
building the store: the **schema step** (:meth:`Engines.connect_graph`), which reads the
schema version recorded in the graph and applies ``cypher/schema.cypher`` only when it is
missing or older (``[neo4j] auto_schema``; :func:`kgmem.graph.schema.ensure_schema`). So a
client works on a fresh database without ``kgmem init``, and costs one read per process
(per :class:`Engines`) afterwards.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kgmem.config import Settings, load_settings

if TYPE_CHECKING:
    import neo4j

    from kgmem.concepts import ConceptExtractor
    from kgmem.graph import GraphStore
    from kgmem.vectors import Embedder, EmbeddingBackend, VectorStore

log = logging.getLogger(__name__)


class Engines:
    """Driver, graph store, vector store and embedder for one set of settings.

    Args:
        settings: read from the environment and ``kgmem.toml`` when omitted.
        driver, chroma, embedder, concepts: existing resources to use instead (not closed by :meth:`close`);
            ``embedder`` may be any :class:`~kgmem.vectors.EmbeddingBackend` (e.g. an embedding API).
    """

    def __init__(self, settings: Settings | None = None, *, driver: "neo4j.Driver | None" = None,
                 chroma: Any | None = None, embedder: "Embedder | EmbeddingBackend | None" = None,
                 concepts: "ConceptExtractor | None" = None) -> None:
        self.settings = settings or load_settings()
        self._driver = driver
        self._owns_driver = driver is None
        self._chroma = chroma
        self._embedder = None
        if embedder is not None:
            from kgmem.vectors import Embedder

            self._embedder = Embedder.wrap(embedder, self.settings.embedding)
        self._concepts = concepts
        self._graph: GraphStore | None = None
        #: the schema version the graph records after the schema step (None: not checked / unreachable)
        self.schema_version: int | None = None
        self._vectors: VectorStore | None = None
        self._lock = threading.RLock()  # re-entrant: graph builds the driver inside its own _once

    def _once(self, attr: str, build: Callable[[], Any]) -> Any:
        """The resource in ``attr``, built by ``build`` the first time (once, even across threads)."""
        if getattr(self, attr) is None:
            with self._lock:
                if getattr(self, attr) is None:
                    setattr(self, attr, build())
        return getattr(self, attr)

    @property
    def driver(self) -> "neo4j.Driver":
        from kgmem.graph import connect

        return self._once("_driver", lambda: connect(self.settings))

    @property
    def graph(self) -> "GraphStore":
        """The graph store; its first use is the first connect (:meth:`connect_graph`)."""
        return self._once("_graph", self.connect_graph)

    def connect_graph(self) -> "GraphStore":
        """The first connect: build the graph store on the driver, then the schema step — apply the
        schema if the graph records none or an older version (unless ``[neo4j] auto_schema = false``).
        :attr:`graph` calls this once; call it directly only for a store of your own."""
        from kgmem.graph import FailurePolicy, GraphStore
        from kgmem.graph.schema import ensure_schema

        graph = GraphStore(self.driver, self.settings.neo4j.database,
                           policy=FailurePolicy.from_settings(self.settings.neo4j))
        if self.settings.neo4j.auto_schema:
            self.schema_version = ensure_schema(graph)
        return graph

    @property
    def vectors(self) -> "VectorStore":
        from kgmem.vectors import VectorStore, open_chroma

        # The embedder's identity and dimension, not the setting: an injected embedder may differ.
        return self._once("_vectors", lambda: VectorStore.for_embedder(
            self._chroma if self._chroma is not None else open_chroma(self.settings), self.embedder))

    @property
    def embedder(self) -> "Embedder":
        """The embedder (the model itself loads on the first embedding)."""
        from kgmem.vectors import Embedder

        return self._once("_embedder", lambda: Embedder(self.settings.embedding, self.settings.models_dir))

    @property
    def concepts(self) -> "ConceptExtractor":
        """The concept extractor (its spaCy pipeline loads on the first extraction)."""
        from kgmem.concepts import ConceptExtractor

        return self._once("_concepts", lambda: ConceptExtractor(self.settings.concepts))

    def close(self) -> None:
        """Close the driver if this object created it."""
        if self._owns_driver and self._driver is not None:
            self._driver.close()
            self._driver = None

    def __enter__(self) -> "Engines":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

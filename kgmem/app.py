"""The composition root: the expensive resources, built once and injected everywhere.

:class:`Engines` owns (or is handed) the Neo4j driver, the Chroma client and the embedder
and builds each on first use — a CLI command that only reads the graph never opens Chroma
or loads the model. :class:`~kgmem.KGMem` and the CLI commands both take their stores from
here instead of constructing them by hand (docs/architecture.md).
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Any

from kgmem.config import Settings, load_settings

if TYPE_CHECKING:
    import neo4j

    from kgmem.graph import GraphStore
    from kgmem.vectors import Embedder, VectorStore

log = logging.getLogger(__name__)


class Engines:
    """Driver, graph store, vector store and embedder for one set of settings.

    Args:
        settings: read from the environment and ``kgmem.toml`` when omitted.
        driver, chroma, embedder: existing resources to use instead (not closed by :meth:`close`).
    """

    def __init__(self, settings: Settings | None = None, *, driver: "neo4j.Driver | None" = None,
                 chroma: Any | None = None, embedder: "Embedder | None" = None) -> None:
        self.settings = settings or load_settings()
        self._driver = driver
        self._owns_driver = driver is None
        self._chroma = chroma
        self._embedder = embedder
        self._graph: GraphStore | None = None
        self._vectors: VectorStore | None = None
        self._lock = threading.Lock()

    @property
    def driver(self) -> "neo4j.Driver":
        if self._driver is None:
            with self._lock:
                if self._driver is None:
                    from kgmem.graph import connect

                    self._driver = connect(self.settings)
        return self._driver

    @property
    def graph(self) -> "GraphStore":
        if self._graph is None:
            from kgmem.graph import GraphStore

            self._graph = GraphStore(self.driver, self.settings.neo4j.database)
        return self._graph

    @property
    def vectors(self) -> "VectorStore":
        if self._vectors is None:
            with self._lock:
                if self._vectors is None:
                    from kgmem.vectors import VectorStore, open_chroma

                    client = self._chroma if self._chroma is not None else open_chroma(self.settings)
                    self._vectors = VectorStore(client)
        return self._vectors

    @property
    def embedder(self) -> "Embedder":
        """The embedder (the model itself loads on the first embedding)."""
        if self._embedder is None:
            with self._lock:
                if self._embedder is None:
                    from kgmem.vectors import Embedder

                    self._embedder = Embedder(self.settings.embedding, self.settings.models_dir)
        return self._embedder

    def close(self) -> None:
        """Close the driver if this object created it."""
        if self._owns_driver and self._driver is not None:
            self._driver.close()
            self._driver = None

    def __enter__(self) -> "Engines":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

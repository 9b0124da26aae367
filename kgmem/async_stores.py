"""The async I/O adapters behind :class:`kgmem.AsyncKGMem`.

Same Cypher files, same parameters, same Chroma collections as the sync stores: only the
calls differ. Everything that is not a call (query loading, the ``ns_key`` parameter,
collection names and metadata, argument building, result parsing) is imported from the
sync modules.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from typing import Any

import neo4j
import numpy as np
from neo4j.exceptions import DatabaseError, TransientError
from tenacity import AsyncRetrying

from kgmem import cypher
from kgmem.config import EmbeddingSettings, Settings
from kgmem.errors import GraphUnavailable, VectorStoreUnavailable
from kgmem.graph.store import _RETRYABLE, FailurePolicy, GraphStore, driver_options, record_dict, with_ns_key
from kgmem.vectors.store import (
    LEGACY_MODEL,
    Custom,
    VectorHit,
    VectorStore,
    check_model,
    collection_metadata,
    collection_name,
    hits_of,
    http_args,
    query_args,
    query_many_args,
    upsert_args,
    vectors_of,
)

log = logging.getLogger(__name__)


def connect_async(settings: Settings) -> neo4j.AsyncDriver:
    """The async Neo4j driver for ``settings.neo4j`` (the sync driver's options)."""
    return neo4j.AsyncGraphDatabase.driver(settings.neo4j.uri, **driver_options(settings))


class AsyncGraphStore(GraphStore):
    """:class:`kgmem.graph.GraphStore` on the async driver: the same named Cypher files, parameter
    checks, retry policy, offline window and error mapping (inherited); only the calls are awaited.
    (The sync-only ``write_statements`` / ``write_autocommit`` are for schema and maintenance.)"""

    # The async driver in place of the sync one: only the overridden (awaited) calls use it.
    driver: neo4j.AsyncDriver  # type: ignore[assignment]

    def __init__(
        self,
        driver: neo4j.AsyncDriver,
        database: str = "neo4j",
        attempts: int | None = None,
        policy: FailurePolicy | None = None,
    ) -> None:
        super().__init__(driver, database, attempts, policy)  # type: ignore[arg-type]

    async def write(self, name: str, **params: Any) -> list[dict[str, Any]]:  # type: ignore[override]
        return await self._aexecute(cypher.load(name), with_ns_key(params), neo4j.RoutingControl.WRITE)

    async def read(self, name: str, **params: Any) -> list[dict[str, Any]]:  # type: ignore[override]
        return await self._aexecute(cypher.load(name), with_ns_key(params), neo4j.RoutingControl.READ)

    async def ping(self) -> None:  # type: ignore[override]
        """Raise :class:`~kgmem.errors.GraphUnavailable` unless Neo4j answers."""
        if self.offline:
            raise GraphUnavailable("Neo4j was unreachable moments ago; not retrying yet")
        try:
            await self.driver.verify_connectivity()
        except neo4j.exceptions.AuthError:
            raise
        except Exception as exc:  # noqa: BLE001 - any failure means "not reachable"
            raise self._went_down(exc) from exc

    async def _aexecute(
        self, query: str, params: dict[str, Any], routing: neo4j.RoutingControl
    ) -> list[dict[str, Any]]:
        self._before(params)
        try:
            async for attempt in AsyncRetrying(**self._retry_policy()):
                with attempt:
                    if routing is neo4j.RoutingControl.READ:  # one round trip (GraphStore._read_autocommit)
                        async with self.driver.session(
                            database=self.database,
                            default_access_mode=neo4j.READ_ACCESS,
                            bookmark_manager=self.driver.execute_query_bookmark_manager,
                        ) as session:
                            result = await session.run(query, params)  # type: ignore[arg-type]
                            return [record_dict(r) async for r in result]
                    records, _, _ = await self.driver.execute_query(
                        query, parameters_=params, routing_=routing, database_=self.database
                    )
                    return [record_dict(r) for r in records]
        except (*_RETRYABLE, TransientError, DatabaseError) as exc:
            mapped = self._failure(exc)
            if mapped is exc:
                raise
            raise mapped from exc
        raise AssertionError("unreachable")  # pragma: no cover - AsyncRetrying reraises


class AsyncHttpVectorStore:
    """:class:`kgmem.vectors.VectorStore` on Chroma's async HTTP client (``[chroma] url`` set)."""

    def __init__(
        self,
        client: Any,
        model: str = LEGACY_MODEL,
        dimension: int | None = None,
        embedding: EmbeddingSettings | Custom | None = None,
    ) -> None:
        self.client = client
        self.model = model
        self.dimension = dimension
        self.embedding = embedding
        self._collections: dict[tuple[str, str], Any] = {}

    async def collection(self, ns: str, kind: str, create: bool = True) -> Any:
        key = (ns, kind)
        if key not in self._collections:
            name = collection_name(ns, kind)
            try:
                if create:
                    coll = await self.client.get_or_create_collection(
                        name,
                        metadata=collection_metadata(ns, kind, self.model, self.dimension),
                        embedding_function=None,
                    )
                else:
                    coll = await self.client.get_collection(name, embedding_function=None)
            except Exception as exc:  # noqa: BLE001 - chroma raises various types for "missing"
                if not create:
                    return None
                raise VectorStoreUnavailable(f"Chroma collection {name} could not be opened: {exc}") from exc
            check_model(coll.metadata, self.model, ns, kind, self.dimension, self.embedding)
            self._collections[key] = coll
        return self._collections[key]

    async def query(
        self,
        ns: str,
        kind: str,
        vector: np.ndarray,
        n: int,
        where: Mapping[str, Any] | None = None,
        payload: bool = True,
    ) -> list[VectorHit]:
        coll = await self.collection(ns, kind, create=False)
        if coll is None or n <= 0:
            return []
        try:
            res = await coll.query(**query_args(vector, n, where, payload))
        except Exception as exc:  # noqa: BLE001 - as VectorStore.query: a failed server is "unavailable"
            self._collections.pop((ns, kind), None)
            raise VectorStoreUnavailable(f"Chroma query of ({ns!r}, {kind!r}) failed: {exc}") from exc
        return hits_of(res)

    async def upsert(
        self,
        ns: str,
        kind: str,
        ids: Sequence[str],
        vectors: np.ndarray,
        documents: Sequence[str] | None = None,
        metadatas: Sequence[Any] | None = None,
    ) -> None:
        if not ids:
            return
        coll = await self.collection(ns, kind)
        try:
            await coll.upsert(**upsert_args(ids, vectors, documents, metadatas))
        except Exception as exc:  # noqa: BLE001 - as VectorStore.upsert
            self._collections.pop((ns, kind), None)
            raise VectorStoreUnavailable(f"Chroma upsert into ({ns!r}, {kind!r}) failed: {exc}") from exc

    async def query_many(
        self, ns: str, kind: str, vectors: np.ndarray, n: int, where: Mapping[str, Any] | None = None
    ) -> dict[str, Any] | None:
        coll = await self.collection(ns, kind, create=False)
        return None if coll is None else await coll.query(**query_many_args(vectors, n, where))

    async def get(self, ns: str, kind: str, ids: Sequence[str]) -> dict[str, np.ndarray]:
        coll = await self.collection(ns, kind, create=False)
        if coll is None or not ids:
            return {}
        return vectors_of(await coll.get(ids=list(ids), include=["embeddings"]))

    async def count(self, ns: str, kind: str) -> int:
        coll = await self.collection(ns, kind, create=False)
        return 0 if coll is None else await coll.count()

    async def delete(self, ns: str, kind: str, ids: Sequence[str]) -> None:
        coll = await self.collection(ns, kind, create=False)
        if coll is not None and ids:
            await coll.delete(ids=list(ids))


class ThreadedVectorStore:
    """The embedded (in-process) Chroma has no async client: the sync store, called in a worker thread."""

    def __init__(self, store: VectorStore) -> None:
        self.store = store

    async def query(
        self,
        ns: str,
        kind: str,
        vector: np.ndarray,
        n: int,
        where: Mapping[str, Any] | None = None,
        payload: bool = True,
    ) -> list[VectorHit]:
        return await asyncio.to_thread(self.store.query, ns, kind, vector, n, where, payload)

    async def upsert(
        self,
        ns: str,
        kind: str,
        ids: Sequence[str],
        vectors: np.ndarray,
        documents: Sequence[str] | None = None,
        metadatas: Sequence[Any] | None = None,
    ) -> None:
        await asyncio.to_thread(self.store.upsert, ns, kind, ids, vectors, documents, metadatas)

    async def query_many(
        self, ns: str, kind: str, vectors: np.ndarray, n: int, where: Mapping[str, Any] | None = None
    ) -> dict[str, Any] | None:
        return await asyncio.to_thread(self.store.query_many, ns, kind, vectors, n, where)

    async def get(self, ns: str, kind: str, ids: Sequence[str]) -> dict[str, np.ndarray]:
        return await asyncio.to_thread(self.store.get, ns, kind, ids)

    async def count(self, ns: str, kind: str) -> int:
        return await asyncio.to_thread(self.store.count, ns, kind)

    async def delete(self, ns: str, kind: str, ids: Sequence[str]) -> None:
        await asyncio.to_thread(self.store.delete, ns, kind, ids)


async def open_async_vectors(
    settings: Settings,
    model: str | None = None,
    dimension: int | None = None,
    embedding: EmbeddingSettings | Custom | None = None,
) -> AsyncHttpVectorStore | ThreadedVectorStore:
    """Chroma's async HTTP client when ``chroma.url`` is set, else the embedded store in a thread.

    ``model``, ``dimension``, ``embedding``: as :class:`~kgmem.vectors.VectorStore` takes them (by
    default the ``[embedding]`` settings' model, dimension unchecked)."""
    if model is None:
        model, embedding = settings.embedding.model, settings.embedding
    import chromadb
    from chromadb.config import Settings as ChromaConfig

    if settings.chroma.url:
        config = ChromaConfig(anonymized_telemetry=False, allow_reset=False)
        client = await chromadb.AsyncHttpClient(**http_args(settings.chroma.url), settings=config)
        return AsyncHttpVectorStore(client, model, dimension, embedding)
    from kgmem.vectors import open_chroma

    return ThreadedVectorStore(
        VectorStore(
            await asyncio.to_thread(open_chroma, settings), model=model, dimension=dimension, embedding=embedding
        )
    )

"""ChromaDB as a derived index of the graph: one collection per (namespace, kind).

Separate collections instead of one with a ``where`` filter: at 100 K vectors a
filtered Chroma query was ~20x slower than an unfiltered one on this machine.
Collection names are a hash of (namespace, kind), since namespaces are free text
and Chroma names are not; the readable values are kept in collection metadata.

Each collection also records the embedding model its vectors come from
(``kgmem_model``) and their dimension (``kgmem_dim``): vectors of different models are
not comparable, so opening a collection built with another model (or dimension) than
the configured one raises :class:`~kgmem.errors.EmbeddingModelMismatch`, naming both
and the ``kgmem reindex`` command that rebuilds it (with :meth:`VectorStore.adopt_model`),
instead of silently mixing the two.
"""

from __future__ import annotations

import hashlib
import logging
import shlex
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlparse

import numpy as np

from kgmem.config import EmbeddingSettings, Settings
from kgmem.errors import EmbeddingModelMismatch, VectorStoreUnavailable
from kgmem.paths import private_dir

if TYPE_CHECKING:
    from kgmem.vectors.embedder import Embedder

log = logging.getLogger(__name__)

Metadata = Mapping[str, str | int | float | bool]

#: What a collection without ``kgmem_model`` was built with: fp32 MiniLM was the only
#: model before the field existed (torch and ONNX backends give the same vectors).
LEGACY_MODEL = "minilm"

#: ``embedding`` of a store whose vectors come from an application's own EmbeddingBackend.
Custom = Literal["custom"]
CUSTOM: Custom = "custom"


def open_chroma(settings: Settings):  # -> chromadb.ClientAPI
    """Create the Chroma client: HTTP when ``chroma.url`` is set, else embedded persistent."""
    import chromadb
    from chromadb.config import Settings as ChromaConfig

    config = ChromaConfig(anonymized_telemetry=False, allow_reset=False)
    if settings.chroma.url:
        return chromadb.HttpClient(**http_args(settings.chroma.url), settings=config)
    private_dir(settings.chroma_path)  # mode 0700: kgmem's data is not for other local users
    return chromadb.PersistentClient(path=str(settings.chroma_path), settings=config)


#: How long a collection Chroma said is missing counts as missing without asking again (seconds).
MISSING_TTL_S = 1.0


def http_args(url: str) -> dict[str, Any]:
    """host/port/ssl of a Chroma server URL (for the sync and the async HTTP client)."""
    parsed = urlparse(url)
    return dict(
        host=parsed.hostname or "127.0.0.1",
        port=parsed.port or (443 if parsed.scheme == "https" else 8000),
        ssl=parsed.scheme == "https",
    )


def collection_name(ns: str, kind: str) -> str:
    """Chroma-safe, deterministic collection name for (namespace, kind)."""
    digest = hashlib.sha256(f"{ns}\x1f{kind}".encode()).hexdigest()[:24]
    return f"kg_{kind[:20]}_{digest}"


@dataclass(frozen=True)
class VectorHit:
    """One nearest neighbour: its node id, cosine distance (0 = same direction) and metadata."""

    id: str
    distance: float
    document: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def similarity(self) -> float:
        return 1.0 - self.distance


class VectorStore:
    """Upserts and nearest-neighbour queries over per-(namespace, kind) collections.

    Args:
        client: a Chroma client from :func:`open_chroma` (owned by the caller).
        model: the identity of the embedding model whose vectors this store reads and writes
            (``Embedder.name``).
        dimension: their dimension (recorded in new collections and checked against existing ones).
        embedding: the ``[embedding]`` settings the model comes from, for the ``kgmem reindex``
            command a mismatch error names; :data:`CUSTOM` for a backend of the application's own.
    """

    def __init__(
        self,
        client,
        model: str = LEGACY_MODEL,
        dimension: int | None = None,
        embedding: EmbeddingSettings | Custom | None = None,
    ) -> None:
        self.client = client
        self.model = model
        self.dimension = dimension
        self.embedding = embedding
        self._collections: dict[tuple[str, str], Any] = {}
        # (ns, kind) → monotonic time until which the collection counts as missing without asking Chroma
        # (see collection()).
        self._missing: dict[tuple[str, str], float] = {}

    @classmethod
    def for_embedder(cls, client, embedder: Embedder) -> VectorStore:
        """The store of ``embedder``'s vectors (its name and dimension are what collections record)."""
        return cls(client, embedder.name, embedder.dimension, embedder.configured_by or CUSTOM)

    def collection(self, ns: str, kind: str, create: bool = True):
        """The collection for (ns, kind); ``None`` if it does not exist and ``create`` is false.

        Raises:
            EmbeddingModelMismatch: the collection holds vectors of another embedding model.
        """
        key = (ns, kind)
        if key not in self._collections:
            if not create and self._missing.get(key, 0.0) > time.monotonic():
                return None
            coll = self._open(ns, kind, create)
            if coll is None:
                # A search asks for every kind in scope, most of which a namespace often has no vectors
                # of; Chroma's answer for a missing collection costs ~1.5 ms CPU (an error raised and
                # caught), so it is remembered briefly. A write from this store creates the collection
                # at once; one from another process is seen by this store's searches within the TTL.
                self._missing[key] = time.monotonic() + MISSING_TTL_S
                return None
            self._missing.pop(key, None)
            check_model(coll.metadata, self.model, ns, kind, self.dimension, self.embedding)
            self._collections[key] = coll
        return self._collections[key]

    def adopt_model(self, ns: str, kind: str) -> bool:
        """Drop the (ns, kind) collection if it was built with another model or dimension (a full
        reindex refills it); returns whether it was dropped."""
        coll = self._open(ns, kind, create=False)
        if coll is None or mismatch(coll.metadata, self.model, self.dimension) is None:
            return False
        log.warning(
            "dropping the %s vectors of %s: built with %r, configured model is %r (%s dimensions)",
            kind,
            ns,
            collection_model(coll.metadata),
            self.model,
            self.dimension or "?",
        )
        self._collections.pop((ns, kind), None)
        self.client.delete_collection(collection_name(ns, kind))
        return True

    def _open(self, ns: str, kind: str, create: bool):
        name = collection_name(ns, kind)
        try:
            if create:
                return self.client.get_or_create_collection(
                    name,
                    metadata=collection_metadata(ns, kind, self.model, self.dimension),
                    embedding_function=None,
                )
            return self.client.get_collection(name, embedding_function=None)
        except Exception as exc:  # noqa: BLE001 - chroma raises various types for "missing"
            if not create:
                return None
            raise VectorStoreUnavailable(f"Chroma collection {name} could not be opened: {exc}") from exc

    def upsert(
        self,
        ns: str,
        kind: str,
        ids: Sequence[str],
        vectors: np.ndarray,
        documents: Sequence[str] | None = None,
        metadatas: Sequence[Metadata] | None = None,
    ) -> None:
        """Insert or replace vectors by id (idempotent: a retry never duplicates)."""
        if not ids:
            return
        try:
            self.collection(ns, kind).upsert(**upsert_args(ids, vectors, documents, metadatas))
        except (VectorStoreUnavailable, EmbeddingModelMismatch):  # a wrong model is a config error, not an outage
            raise
        except Exception as exc:  # noqa: BLE001 - chromadb raises InternalError, sqlite and OS errors
            # A collection removed under us stays broken in the cache: open it afresh next time.
            self._collections.pop((ns, kind), None)
            raise VectorStoreUnavailable(f"Chroma upsert into ({ns!r}, {kind!r}) failed: {exc}") from exc

    def query(
        self,
        ns: str,
        kind: str,
        vector: np.ndarray,
        n: int,
        where: Mapping[str, Any] | None = None,
        payload: bool = True,
    ) -> list[VectorHit]:
        """The ``n`` nearest vectors to ``vector`` in (ns, kind), nearest first; without ``payload``
        the hits carry no document and no metadata (Chroma then reads no row of its SQLite)."""
        coll = self.collection(ns, kind, create=False)
        if coll is None or n <= 0:
            return []
        # No count() first: it cost ~8 ms at 100 K vectors against ~2 ms for the query, and
        # Chroma >= 1.0 returns fewer results (or none) by itself when the collection is smaller.
        try:
            res = coll.query(**query_args(vector, n, where, payload))
        except Exception as exc:  # noqa: BLE001 - see upsert
            self._collections.pop((ns, kind), None)
            raise VectorStoreUnavailable(f"Chroma query of ({ns!r}, {kind!r}) failed: {exc}") from exc
        return hits_of(res)

    def query_many(
        self, ns: str, kind: str, vectors: np.ndarray, n: int, where: Mapping[str, Any] | None = None
    ) -> dict[str, Any] | None:
        """Chroma's raw result (ids, distances, metadatas per query vector); None without the collection."""
        coll = self.collection(ns, kind, create=False)
        return None if coll is None else coll.query(**query_many_args(vectors, n, where))

    def get(self, ns: str, kind: str, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """Stored vectors by id (missing ids are absent from the result)."""
        coll = self.collection(ns, kind, create=False)
        if coll is None or not ids:
            return {}
        return vectors_of(coll.get(ids=list(ids), include=["embeddings"]))

    def delete(self, ns: str, kind: str, ids: Sequence[str]) -> None:
        coll = self.collection(ns, kind, create=False)
        if coll is not None and ids:
            coll.delete(ids=list(ids))

    def count(self, ns: str, kind: str) -> int:
        coll = self.collection(ns, kind, create=False)
        return 0 if coll is None else coll.count()

    def drop_namespace(self, ns: str, kinds: Sequence[str]) -> None:
        """Delete the collections of ``ns`` for ``kinds`` (tests and `kgmem import --replace`)."""
        for kind in kinds:
            self._collections.pop((ns, kind), None)
            try:
                self.client.delete_collection(collection_name(ns, kind))
            except Exception:  # noqa: BLE001 - already absent
                pass


def collection_model(metadata: Mapping[str, Any] | None) -> str:
    """The embedding model a collection's metadata records (:data:`LEGACY_MODEL` if none)."""
    return str((metadata or {}).get("kgmem_model") or LEGACY_MODEL)


def collection_dimension(metadata: Mapping[str, Any] | None) -> int | None:
    """The vector dimension a collection's metadata records (``None``: built before it was recorded)."""
    value = (metadata or {}).get("kgmem_dim")
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def same_model(built: str, configured: str) -> bool:
    """Whether two model identities name the same weights: equal, or ``label@fingerprint`` ids with the
    same fingerprint (one model directory moved, copied or named another way)."""
    if built == configured:
        return True
    if "@" in built and "@" in configured:
        return built.rsplit("@", 1)[1] == configured.rsplit("@", 1)[1]
    return False


def mismatch(metadata: Mapping[str, Any] | None, model: str, dimension: int | None) -> str | None:
    """What differs between a collection and the configured model, or ``None`` if they agree."""
    built, built_dim = collection_model(metadata), collection_dimension(metadata)
    if not same_model(built, model):
        return f"embedding model {built!r}{_dims(built_dim)}, but the configured model is {model!r}{_dims(dimension)}"
    if built_dim is not None and dimension is not None and built_dim != dimension:
        return f"{built_dim}-dimensional vectors of {built!r}, but the configured model gives {dimension}"
    return None


def _dims(dimension: int | None) -> str:
    return f" ({dimension} dimensions)" if dimension else ""


def reindex_command(ns: str, embedding: EmbeddingSettings | Custom | None) -> str:
    """How to rebuild the vectors of ``ns`` with the configured model (what a mismatch error tells)."""
    if embedding == CUSTOM:  # a backend of the application's own: the CLI cannot build it
        return f"kgmem.maintenance.reindex(mem.graph, mem.vectors, mem.embedder, {ns!r})"
    command = ["kgmem", "reindex", "--ns", ns]
    if not isinstance(embedding, EmbeddingSettings):
        return shlex.join(command)
    command += ["--model", embedding.model]
    if embedding.tokenizer is not None:
        command += ["--tokenizer", str(embedding.tokenizer)]
    return shlex.join(command)


def check_model(
    metadata: Mapping[str, Any] | None,
    model: str,
    ns: str,
    kind: str,
    dimension: int | None = None,
    embedding: EmbeddingSettings | Custom | None = None,
) -> None:
    """Raise :class:`EmbeddingModelMismatch` unless the collection was built with ``model`` (and
    ``dimension``, when both are known)."""
    problem = mismatch(metadata, model, dimension)
    if problem is not None:
        raise EmbeddingModelMismatch(
            f"the {kind} vectors of namespace {ns!r} were built with {problem}; vectors of different "
            f"models are not comparable. Run `{reindex_command(ns, embedding)}`"
            + (" (mem: a KGMem built with your embedder)" if embedding == CUSTOM else "")
            + f" to rebuild them with {model!r} (or configure {collection_model(metadata)!r} again)"
        )


def query_args(vector: np.ndarray, n: int, where: Mapping[str, Any] | None, payload: bool = True) -> dict[str, Any]:
    """The arguments of a Chroma ``collection.query`` (shared by the sync and the async store).
    Documents and metadata cost ~3 ms a query (60 results) on top of ~1–2 ms for ids and
    distances: they are fetched row by row from Chroma's SQLite."""
    return dict(
        query_embeddings=np.asarray(vector, dtype=np.float32).reshape(1, -1),
        n_results=n,
        where=dict(where) if where else None,
        include=["distances", "metadatas", "documents"] if payload else ["distances"],
    )


def query_many_args(vectors: np.ndarray, n: int, where: Mapping[str, Any] | None) -> dict[str, Any]:
    """The arguments of a many-vector ``collection.query`` (the learning engine's neighbour search)."""
    return dict(
        query_embeddings=np.asarray(vectors, dtype=np.float32),
        n_results=n,
        where=dict(where) if where else None,
        include=["distances", "metadatas"],
    )


def vectors_of(res: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """A Chroma ``get(include=["embeddings"])`` result as ``{id: vector}``."""
    embeddings = res.get("embeddings")
    if embeddings is None:
        return {}
    return {i: np.asarray(e, dtype=np.float32) for i, e in zip(res["ids"], embeddings)}


def hits_of(res: Mapping[str, Any]) -> list[VectorHit]:
    """A Chroma query result (for one query vector) as hits, nearest first."""
    ids = res["ids"][0]
    dists = res["distances"][0]
    metas = (res.get("metadatas") or [[None] * len(ids)])[0]
    docs = (res.get("documents") or [[None] * len(ids)])[0]
    return [
        VectorHit(id=i, distance=float(d), document=doc, metadata=dict(m or {}))
        for i, d, m, doc in zip(ids, dists, metas, docs)
    ]


def upsert_args(
    ids: Sequence[str], vectors: np.ndarray, documents: Sequence[str] | None, metadatas: Sequence[Metadata] | None
) -> dict[str, Any]:
    """The arguments of a Chroma ``collection.upsert`` (shared by the sync and the async store)."""
    return dict(
        ids=list(ids),
        embeddings=np.asarray(vectors, dtype=np.float32),
        documents=list(documents) if documents is not None else None,
        metadatas=[_clean_metadata(m) for m in metadatas] if metadatas else None,
    )


def collection_metadata(ns: str, kind: str, model: str, dimension: int | None = None) -> dict[str, str | int]:
    """A new collection's metadata: cosine space, its namespace and kind, the embedding model of its
    vectors and their dimension."""
    meta: dict[str, str | int] = {"hnsw:space": "cosine", "kgmem_ns": ns, "kgmem_kind": kind, "kgmem_model": model}
    if dimension is not None:
        meta["kgmem_dim"] = int(dimension)
    return meta


def _clean_metadata(meta: Metadata) -> dict[str, str | int | float | bool]:
    # Chroma rejects None values and nested types.
    return {k: v for k, v in meta.items() if isinstance(v, (str, int, float, bool))}

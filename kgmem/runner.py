"""One body, two runners: engine operations as generators of I/O requests ("sans-I/O").

An engine operation (a search, a feedback, a knowledge insert …) is written once as a
generator: it *yields* the I/O it needs — :class:`Read`, :class:`Write`, :class:`Embed`,
:class:`VectorQuery` … — and receives each result back (or the exception, thrown into
the generator at the ``yield``, so ``try/except`` inside an operation works as usual).
Everything between two yields is the shared pure logic.

:func:`run` drives an operation with the sync stores (:class:`SyncIO`, used by
:class:`kgmem.KGMem`); :func:`arun` with the async ones (:class:`AsyncIO`, used by
:class:`kgmem.AsyncKGMem`). A new operation therefore needs no second async copy, and a
new *kind* of I/O needs one request class and one branch in each runner.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Generator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np

log = logging.getLogger(__name__)

T = TypeVar("T")
#: An engine operation: yields requests, receives their results, returns ``T``.
Op = Generator[Any, Any, T]


# -- the requests -------------------------------------------------------------------------
@dataclass(frozen=True)
class Read:
    """Run ``cypher/<name>.cypher`` in a read transaction → rows as dicts."""

    name: str
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Write:
    """Run ``cypher/<name>.cypher`` in a write transaction → rows as dicts."""

    name: str
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Embed:
    """Embed texts → an ``(n, dim)`` float32 array."""

    texts: Sequence[str]


@dataclass(frozen=True)
class EmbedQuery:
    """Embed one query (through the embedder's LRU cache) → a ``(dim,)`` vector."""

    text: str


@dataclass(frozen=True)
class VectorQuery:
    """Nearest neighbours in Chroma → ``list[VectorHit]`` (see :meth:`kgmem.vectors.VectorStore.query`)."""

    ns: str
    kind: str
    vector: np.ndarray
    n: int
    where: Mapping[str, Any] | None = None
    payload: bool = True  # False: ids and distances only (no documents, no metadata)


@dataclass(frozen=True)
class VectorUpsert:
    """Insert or replace vectors by id → ``None``."""

    ns: str
    kind: str
    ids: Sequence[str]
    vectors: np.ndarray
    documents: Sequence[str] | None = None
    metadatas: Sequence[Mapping[str, Any]] | None = None


@dataclass(frozen=True)
class VectorQueryMany:
    """Nearest neighbours of several vectors → Chroma's raw result (ids, distances, metadatas per
    vector), or ``None`` if the collection does not exist."""

    ns: str
    kind: str
    vectors: np.ndarray
    n: int
    where: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class VectorGet:
    """Stored vectors by id → ``{id: vector}`` (missing ids absent)."""

    ns: str
    kind: str
    ids: Sequence[str]


@dataclass(frozen=True)
class VectorCount:
    """How many vectors (ns, kind) holds → ``int`` (0 if the collection does not exist)."""

    ns: str
    kind: str


@dataclass(frozen=True)
class VectorDelete:
    """Delete vectors by id → ``None``."""

    ns: str
    kind: str
    ids: Sequence[str]


@dataclass(frozen=True)
class LocalIO:
    """A blocking call on local files (a spool append: ``write`` + ``fsync``) → its result. The
    sync runner calls it; the async runner runs it in a worker thread, off the event loop."""

    fn: Callable[..., Any]
    args: tuple[Any, ...] = ()


@dataclass(frozen=True)
class Ping:
    """Raise :class:`~kgmem.errors.BackendUnavailable` unless Neo4j answers → ``None``."""


@dataclass(frozen=True)
class Gather:
    """Run several operations concurrently → their results, in order (the first error is raised)."""

    ops: tuple[Op, ...]


@dataclass(frozen=True)
class Background:
    """Start an operation without waiting for it (its failure is logged) → ``None``.
    :class:`Flush` (or closing the client) waits for every background operation."""

    op: Op
    what: str = "background write"


@dataclass(frozen=True)
class Flush:
    """Wait for the background operations started so far → ``None``."""

    timeout: float | None = 30.0


# -- the I/O ports -----------------------------------------------------------------------------
class SyncIO:
    """The sync backends an operation runs against (the graph store, vector store, embedder).

    ``Gather`` branches after the first run on a small thread pool (the keyword leg's Neo4j
    round trip overlaps the query embedding and the Chroma query, as before the split);
    ``Background`` operations on one writer thread (both pools start on first use).
    """

    def __init__(self, graph: Any, vectors: Any, embedder: Any, *, workers: int = 2) -> None:
        self.graph = graph
        self.vectors = vectors
        self.embedder = embedder
        self._workers = workers
        self._pool: ThreadPoolExecutor | None = None
        self._writer: ThreadPoolExecutor | None = None
        self._pending: set[Future] = set()
        self._lock = threading.Lock()

    def _executor(self, attr: str, workers: int, prefix: str) -> ThreadPoolExecutor:
        with self._lock:
            if getattr(self, attr) is None:
                setattr(self, attr, ThreadPoolExecutor(max_workers=workers, thread_name_prefix=prefix))
            return getattr(self, attr)

    def flush(self, timeout: float | None = 30.0) -> None:
        with self._lock:
            pending = list(self._pending)
        wait(pending, timeout=timeout)

    def close(self) -> None:
        self.flush()
        if self._writer is not None:
            self._writer.shutdown(wait=True)
        if self._pool is not None:
            self._pool.shutdown(wait=False)

    def _spawn(self, req: Background) -> None:
        writer = self._executor("_writer", 1, "kgmem-background")
        future = writer.submit(run, req.op, self)
        with self._lock:
            self._pending.add(future)

        def done(f: Future) -> None:
            with self._lock:
                self._pending.discard(f)
            if f.exception() is not None:
                log.warning("%s failed: %s", req.what, f.exception())

        future.add_done_callback(done)

    def handle(self, req: Any) -> Any:
        if isinstance(req, Read):
            return self.graph.read(req.name, **req.params)
        if isinstance(req, Write):
            return self.graph.write(req.name, **req.params)
        if isinstance(req, EmbedQuery):
            return self.embedder.embed_query(req.text)
        if isinstance(req, Embed):
            return self.embedder.embed(req.texts)
        if isinstance(req, VectorQuery):
            return self.vectors.query(req.ns, req.kind, req.vector, req.n, where=req.where, payload=req.payload)
        if isinstance(req, VectorUpsert):
            return self.vectors.upsert(req.ns, req.kind, req.ids, req.vectors, req.documents, req.metadatas)
        if isinstance(req, VectorQueryMany):
            return self.vectors.query_many(req.ns, req.kind, req.vectors, req.n, req.where)
        if isinstance(req, VectorGet):
            return self.vectors.get(req.ns, req.kind, req.ids)
        if isinstance(req, VectorCount):
            return self.vectors.count(req.ns, req.kind)
        if isinstance(req, VectorDelete):
            return self.vectors.delete(req.ns, req.kind, req.ids)
        if isinstance(req, LocalIO):
            return req.fn(*req.args)
        if isinstance(req, Ping):
            return self.graph.ping()
        if isinstance(req, Gather):
            if not req.ops:
                return []
            pool = self._executor("_pool", self._workers, "kgmem-io") if len(req.ops) > 1 else None
            futures = [pool.submit(run, op, self) for op in req.ops[1:]] if pool else []
            first = run(req.ops[0], self)
            return [first, *(f.result() for f in futures)]
        if isinstance(req, Background):
            return self._spawn(req)
        if isinstance(req, Flush):
            return self.flush(req.timeout)
        raise TypeError(f"unknown I/O request {req!r}")


def run(op: Op[T], io: SyncIO) -> T:
    """Drive ``op`` to completion with the sync backends in ``io``; return its result."""
    return _drive(op, io.handle)


def _drive(op: Op[T], handle: Callable[[Any], Any]) -> T:
    try:
        req = next(op)
        while True:
            try:
                result = handle(req)
            except Exception as exc:  # noqa: BLE001 - handed to the operation, which may catch it
                req = op.throw(exc)
            else:
                req = op.send(result)
    except StopIteration as stop:
        return stop.value


class AsyncIO:
    """The async backends: an :class:`~kgmem.aio.stores.AsyncGraphStore`, an async vector store
    and the (sync) embedder, which runs in a worker thread (ONNX inference releases the GIL)."""

    def __init__(self, graph: Any, vectors: Any, embedder: Any) -> None:
        self.graph = graph
        self.vectors = vectors
        self.embedder = embedder
        self._pending: set[asyncio.Task] = set()

    async def flush(self, timeout: float | None = 30.0) -> None:
        pending = list(self._pending)
        if pending:
            await asyncio.wait(pending, timeout=timeout)

    async def close(self) -> None:
        await self.flush()

    def _spawn(self, req: Background) -> None:
        task = asyncio.get_running_loop().create_task(arun(req.op, self))
        self._pending.add(task)

        def done(t: asyncio.Task) -> None:
            self._pending.discard(t)
            if not t.cancelled() and t.exception() is not None:
                log.warning("%s failed: %s", req.what, t.exception())

        task.add_done_callback(done)

    async def handle(self, req: Any) -> Any:
        if isinstance(req, Read):
            return await self.graph.read(req.name, **req.params)
        if isinstance(req, Write):
            return await self.graph.write(req.name, **req.params)
        if isinstance(req, EmbedQuery):
            return await asyncio.to_thread(self.embedder.embed_query, req.text)
        if isinstance(req, Embed):
            return await asyncio.to_thread(self.embedder.embed, req.texts)
        if isinstance(req, VectorQuery):
            return await self.vectors.query(req.ns, req.kind, req.vector, req.n, where=req.where, payload=req.payload)
        if isinstance(req, VectorUpsert):
            return await self.vectors.upsert(req.ns, req.kind, req.ids, req.vectors, req.documents, req.metadatas)
        if isinstance(req, VectorQueryMany):
            return await self.vectors.query_many(req.ns, req.kind, req.vectors, req.n, req.where)
        if isinstance(req, VectorGet):
            return await self.vectors.get(req.ns, req.kind, req.ids)
        if isinstance(req, VectorCount):
            return await self.vectors.count(req.ns, req.kind)
        if isinstance(req, VectorDelete):
            return await self.vectors.delete(req.ns, req.kind, req.ids)
        if isinstance(req, LocalIO):
            return await asyncio.to_thread(req.fn, *req.args)
        if isinstance(req, Ping):
            return await self.graph.ping()
        if isinstance(req, Gather):
            return list(await asyncio.gather(*(arun(op, self) for op in req.ops)))
        if isinstance(req, Background):
            return self._spawn(req)
        if isinstance(req, Flush):
            return await self.flush(req.timeout)
        raise TypeError(f"unknown I/O request {req!r}")


async def arun(op: Op[T], io: AsyncIO) -> T:
    """Drive ``op`` to completion with the async backends in ``io``; return its result."""
    try:
        req = next(op)
        while True:
            try:
                result = await io.handle(req)
            except Exception as exc:  # noqa: BLE001 - handed to the operation, which may catch it
                req = op.throw(exc)
            else:
                req = op.send(result)
    except StopIteration as stop:
        return stop.value


def returns(value: T) -> Op[T]:
    """An operation that does no I/O and returns ``value`` (for early exits shared by both runners)."""
    return value
    yield  # pragma: no cover - makes this a generator

"""One body, two runners: engine operations as generators of I/O requests ("sans-I/O").

An engine operation (a search, a feedback, a knowledge insert …) is written once as a
generator: it *yields* the I/O it needs — :class:`Read`, :class:`Write`, :class:`Embed`,
:class:`VectorQuery` … — and receives each result back (or the exception, thrown into
the generator at the ``yield``, so ``try/except`` inside an operation works as usual).
Everything between two yields is the shared pure logic.

:func:`run` drives an operation with the sync stores (:class:`SyncIO`, used by
:class:`kgmem.KGMem`); :func:`arun` with the async ones (:class:`AsyncIO`, used by
:class:`kgmem.AsyncKGMem`). A new operation therefore needs no second async copy, and a
new *kind* of I/O needs one request class (added to :data:`Request`), its handler's name in
``_HANDLER_NAMES`` and that handler in each runner (a unit test checks both tables cover
:data:`Request`). :func:`synced` makes the sync method of an operation method.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import threading
from collections.abc import Awaitable, Callable, Generator, Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any, ClassVar, Concatenate, ParamSpec, TypeAlias, TypeVar

import numpy as np

log = logging.getLogger(__name__)

T = TypeVar("T")
#: An engine operation: yields :data:`Request` objects, receives their results, returns ``T``.
Op = Generator["Request", Any, T]


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
    """A blocking call → its result: local files (a spool append: ``write`` + ``fsync``), an LLM
    request through a sync SDK, CPU-heavy work (spaCy concept extraction, the offline extractor).
    The sync runner calls it; the async runner runs it in a worker thread, off the event loop."""

    fn: Callable[..., Any]
    args: tuple[Any, ...] = ()


@dataclass(frozen=True)
class Ping:
    """Raise :class:`~kgmem.errors.BackendUnavailable` unless Neo4j answers → ``None``."""


@dataclass(frozen=True)
class Gather:
    """Run several operations concurrently → their results, in order (the first error is raised)."""

    ops: tuple[Op[Any], ...]


@dataclass(frozen=True)
class Background:
    """Start an operation without waiting for it (its failure is logged) → ``None``.
    :class:`Flush` (or closing the client) waits for every background operation.

    ``wake``, if given, is called by every flush before it waits while the operation is pending: an
    operation that waits on purpose (the query log gathers the searches of a second into one write)
    ends its wait, so a flush never sits out that delay."""

    op: Op[Any]
    what: str = "background write"
    wake: Callable[[], None] | None = None


@dataclass(frozen=True)
class Flush:
    """Wait for the background operations started so far → ``None``."""

    timeout: float | None = 30.0


#: Every request an operation may yield (each runner has one handler per member).
Request: TypeAlias = (
    Read
    | Write
    | Embed
    | EmbedQuery
    | VectorQuery
    | VectorUpsert
    | VectorQueryMany
    | VectorGet
    | VectorCount
    | VectorDelete
    | LocalIO
    | Ping
    | Gather
    | Background
    | Flush
)


# -- the I/O ports -----------------------------------------------------------------------------
#: The name of the method that handles each request type; both runners define one of each.
_HANDLER_NAMES: dict[type, str] = {
    Read: "_read",
    Write: "_write",
    Embed: "_embed",
    EmbedQuery: "_embed_query",
    VectorQuery: "_vector_query",
    VectorUpsert: "_vector_upsert",
    VectorQueryMany: "_vector_query_many",
    VectorGet: "_vector_get",
    VectorCount: "_vector_count",
    VectorDelete: "_vector_delete",
    LocalIO: "_local_io",
    Ping: "_ping",
    Gather: "_gather",
    Background: "_background",
    Flush: "_flush",
}


def _dispatch_table(runner: type) -> dict[type, Callable[[Any, Any], Any]]:
    """``runner``'s handler (an unbound method) for each request type."""
    return {req: getattr(runner, name) for req, name in _HANDLER_NAMES.items()}


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
        self._pending: dict[Future, Callable[[], None] | None] = {}  # each with its Background.wake
        self._lock = threading.Lock()

    def _executor(self, attr: str, workers: int, prefix: str) -> ThreadPoolExecutor:
        with self._lock:
            if getattr(self, attr) is None:
                setattr(self, attr, ThreadPoolExecutor(max_workers=workers, thread_name_prefix=prefix))
            return getattr(self, attr)

    def flush(self, timeout: float | None = 30.0) -> None:
        with self._lock:
            pending = dict(self._pending)
        _wake(pending.values())
        wait(pending, timeout=timeout)

    def close(self) -> None:
        self.flush()
        if self._writer is not None:
            self._writer.shutdown(wait=True)
        if self._pool is not None:
            self._pool.shutdown(wait=False)

    #: The handler method of each request type (:func:`_dispatch_table`).
    HANDLERS: ClassVar[dict[type, Callable[[Any, Any], Any]]]

    def handle(self, req: Request) -> Any:
        """Run one request (the dispatch table :attr:`HANDLERS`, by the request's type)."""
        handler = self.HANDLERS.get(type(req))
        if handler is None:
            raise TypeError(f"unknown I/O request {req!r}")
        return handler(self, req)

    # -- one handler per request type --------------------------------------------------------
    def _read(self, req: Read) -> Any:
        return self.graph.read(req.name, **req.params)

    def _write(self, req: Write) -> Any:
        return self.graph.write(req.name, **req.params)

    def _embed(self, req: Embed) -> Any:
        return self.embedder.embed(req.texts)

    def _embed_query(self, req: EmbedQuery) -> Any:
        return self.embedder.embed_query(req.text)

    def _vector_query(self, req: VectorQuery) -> Any:
        return self.vectors.query(req.ns, req.kind, req.vector, req.n, where=req.where, payload=req.payload)

    def _vector_upsert(self, req: VectorUpsert) -> Any:
        return self.vectors.upsert(req.ns, req.kind, req.ids, req.vectors, req.documents, req.metadatas)

    def _vector_query_many(self, req: VectorQueryMany) -> Any:
        return self.vectors.query_many(req.ns, req.kind, req.vectors, req.n, req.where)

    def _vector_get(self, req: VectorGet) -> Any:
        return self.vectors.get(req.ns, req.kind, req.ids)

    def _vector_count(self, req: VectorCount) -> Any:
        return self.vectors.count(req.ns, req.kind)

    def _vector_delete(self, req: VectorDelete) -> Any:
        return self.vectors.delete(req.ns, req.kind, req.ids)

    def _local_io(self, req: LocalIO) -> Any:
        return req.fn(*req.args)

    def _ping(self, req: Ping) -> Any:
        return self.graph.ping()

    def _gather(self, req: Gather) -> list[Any]:
        if not req.ops:
            return []
        pool = self._executor("_pool", self._workers, "kgmem-io") if len(req.ops) > 1 else None
        futures = [pool.submit(run, op, self) for op in req.ops[1:]] if pool else []
        try:
            first = run(req.ops[0], self)
        except BaseException:
            wait(futures)  # the branches end before the error reaches the caller: no work left behind
            raise
        return [first, *(f.result() for f in futures)]

    def _background(self, req: Background) -> None:
        writer = self._executor("_writer", 1, "kgmem-background")
        future = writer.submit(run, req.op, self)
        with self._lock:
            self._pending[future] = req.wake

        def done(f: Future) -> None:
            with self._lock:
                self._pending.pop(f, None)
            if f.exception() is not None:
                log.warning("%s failed: %s", req.what, f.exception())

        future.add_done_callback(done)

    def _flush(self, req: Flush) -> None:
        self.flush(req.timeout)


SyncIO.HANDLERS = _dispatch_table(SyncIO)


def _wake(wakes: Iterable[Callable[[], None] | None]) -> None:
    """Call the wakes of pending background operations (see :class:`Background`)."""
    for wake in wakes:
        if wake is not None:
            wake()


def run(op: Op[T], io: SyncIO) -> T:
    """Drive ``op`` to completion with the sync backends in ``io``; return its result."""
    return _drive(op, io.handle)


S = TypeVar("S")
P = ParamSpec("P")


def synced(op: Callable[Concatenate[S, P], Op[T]]) -> Callable[Concatenate[S, P], T]:
    """The sync method of the operation method ``op`` (``name = synced(name_op)`` in a class body):
    same arguments and docstring, runs the operation on ``self.io`` (a :class:`SyncIO`)."""

    @functools.wraps(op)
    def method(self: Any, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return run(op(self, *args, **kwargs), self.io)

    method.__name__ = op.__name__.removesuffix("_op")
    method.__qualname__ = op.__qualname__.removesuffix("_op")
    return method


def _drive(op: Op[T], handle: Callable[[Request], Any]) -> T:
    """Drive ``op``, answering each request with ``handle`` (the sync runner; tests script replies)."""
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
    """The async backends: an :class:`~kgmem.async_stores.AsyncGraphStore`, an async vector store
    and the (sync) embedder, which runs in a worker thread (ONNX inference releases the GIL)."""

    def __init__(self, graph: Any, vectors: Any, embedder: Any) -> None:
        self.graph = graph
        self.vectors = vectors
        self.embedder = embedder
        self._pending: dict[asyncio.Task, Callable[[], None] | None] = {}  # each with its Background.wake

    async def flush(self, timeout: float | None = 30.0) -> None:
        pending = dict(self._pending)
        _wake(pending.values())
        if pending:
            await asyncio.wait(pending, timeout=timeout)

    async def close(self) -> None:
        await self.flush()

    #: The handler method of each request type (:func:`_dispatch_table`).
    HANDLERS: ClassVar[dict[type, Callable[[Any, Any], Awaitable[Any]]]]

    async def handle(self, req: Request) -> Any:
        """Run one request (the dispatch table :attr:`HANDLERS`, by the request's type)."""
        handler = self.HANDLERS.get(type(req))
        if handler is None:
            raise TypeError(f"unknown I/O request {req!r}")
        return await handler(self, req)

    # -- one handler per request type --------------------------------------------------------
    async def _read(self, req: Read) -> Any:
        return await self.graph.read(req.name, **req.params)

    async def _write(self, req: Write) -> Any:
        return await self.graph.write(req.name, **req.params)

    async def _embed(self, req: Embed) -> Any:
        return await asyncio.to_thread(self.embedder.embed, req.texts)

    async def _embed_query(self, req: EmbedQuery) -> Any:
        return await asyncio.to_thread(self.embedder.embed_query, req.text)

    async def _vector_query(self, req: VectorQuery) -> Any:
        return await self.vectors.query(req.ns, req.kind, req.vector, req.n, where=req.where, payload=req.payload)

    async def _vector_upsert(self, req: VectorUpsert) -> Any:
        return await self.vectors.upsert(req.ns, req.kind, req.ids, req.vectors, req.documents, req.metadatas)

    async def _vector_query_many(self, req: VectorQueryMany) -> Any:
        return await self.vectors.query_many(req.ns, req.kind, req.vectors, req.n, req.where)

    async def _vector_get(self, req: VectorGet) -> Any:
        return await self.vectors.get(req.ns, req.kind, req.ids)

    async def _vector_count(self, req: VectorCount) -> Any:
        return await self.vectors.count(req.ns, req.kind)

    async def _vector_delete(self, req: VectorDelete) -> Any:
        return await self.vectors.delete(req.ns, req.kind, req.ids)

    async def _local_io(self, req: LocalIO) -> Any:
        return await asyncio.to_thread(req.fn, *req.args)

    async def _ping(self, req: Ping) -> Any:
        return await self.graph.ping()

    async def _gather(self, req: Gather) -> list[Any]:
        return list(await asyncio.gather(*(arun(op, self) for op in req.ops)))

    async def _background(self, req: Background) -> None:
        task = asyncio.get_running_loop().create_task(arun(req.op, self))
        self._pending[task] = req.wake

        def done(t: asyncio.Task) -> None:
            self._pending.pop(t, None)
            if not t.cancelled() and t.exception() is not None:
                log.warning("%s failed: %s", req.what, t.exception())

        task.add_done_callback(done)

    async def _flush(self, req: Flush) -> None:
        await self.flush(req.timeout)


AsyncIO.HANDLERS = _dispatch_table(AsyncIO)


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

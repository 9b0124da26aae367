"""The composition root: every resource and engine kgmem runs on is built here, once, lazily.

:class:`Engines` owns (or adopts) the expensive resources — the Neo4j driver (sync and async),
the Chroma client, the embedder, the concept extractor, the LLM generator — and builds from
them the engines the surfaces call: the graph store (with its failure policy), the vector store,
the spool replayer, the learning engine, retrieval, the turn store and recorder, conversation
analysis and the call graph; and, for :class:`~kgmem.AsyncKGMem`, the async graph store and
the same engines' operations on async stores. :class:`~kgmem.KGMem`, :class:`~kgmem.AsyncKGMem`,
the MCP server and every CLI command take what they need from one :class:`Engines` and build
no store themselves (``tests/unit/test_composition_root.py`` fails on a ``GraphStore(`` built
anywhere else).

Nothing connects or loads at construction: each resource is built on its first use — a
command that only reads the graph never opens Chroma, nothing loads the model until something
is embedded, and ``KGMem()`` with Neo4j down constructs fine (its first call reports it). The
engines a client calls are built together, on the first use of any of them, because they
register on one spool replayer: a replay must find the appliers of every kind it may meet.

The first connect — the first use of :attr:`Engines.graph` — has one named step besides
building the store: the **schema step** (:meth:`Engines.connect_graph`), which reads the
schema version recorded in the graph and applies ``cypher/schema.cypher`` only when it is
missing or older (``[neo4j] auto_schema``; :func:`kgmem.graph.schema.ensure_schema`). So a
client works on a fresh database without ``kgmem init``, and costs one read per process
(per :class:`Engines`) afterwards. The async first connect (:meth:`Engines.open_async`) runs the
same step with one async read.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from kgmem.config import Settings, load_settings
from kgmem.tombstones import NameTombstones

if TYPE_CHECKING:
    import neo4j

    from kgmem.analysis import AnalysisService
    from kgmem.analysis.curation import Curator
    from kgmem.analysis.events import AnalysisStats
    from kgmem.analysis.store import KnowledgeStore
    from kgmem.async_stores import AsyncGraphStore
    from kgmem.callgraph import CallGraph
    from kgmem.concepts import ConceptExtractor
    from kgmem.config import AnalysisSettings
    from kgmem.conversation import TurnStore
    from kgmem.conversation.recorder import TurnRecorder
    from kgmem.forget import Forgetter
    from kgmem.graph import GraphStore
    from kgmem.learning import LearningEngine
    from kgmem.llm import TextGenerator
    from kgmem.retrieval import Retrieval
    from kgmem.retrieval.service import RetrievalEngine
    from kgmem.runner import AsyncIO, Op
    from kgmem.spool import SpoolReplayer
    from kgmem.vectors import Embedder, EmbeddingBackend, VectorStore

log = logging.getLogger(__name__)

T = TypeVar("T")

_UNSET: Any = object()


@dataclass(frozen=True)
class SyncEngines:
    """The engines :class:`~kgmem.KGMem` calls, wired to each other and to one spool replayer."""

    learning: LearningEngine
    retrieval: Retrieval
    turns: TurnStore
    analysis: AnalysisService
    conversation: TurnRecorder
    callgraph: CallGraph


@dataclass(frozen=True)
class AsyncEngines:
    """The engines whose operations :class:`~kgmem.AsyncKGMem` runs on the async stores (their sync
    stores stay unset: an operation names its I/O, :func:`kgmem.runner.arun` performs it)."""

    replayer: SpoolReplayer
    learning: LearningEngine
    retrieval: RetrievalEngine
    turns: TurnStore
    conversation: TurnRecorder
    analysis: AnalysisService
    callgraph: CallGraph

    @property
    def counters(self) -> AnalysisStats:
        return self.analysis.counters

    @property
    def knowledge(self) -> KnowledgeStore:
        return self.analysis.store

    @property
    def curator(self) -> Curator:
        return self.analysis.curator


class Engines:
    """Every resource and engine for one set of settings, each built on first use.

    Args:
        settings: read from the environment and ``kgmem.toml`` when omitted.
        driver, chroma, embedder, concepts: existing resources to use instead (not closed by :meth:`close`);
            ``embedder`` may be any :class:`~kgmem.vectors.EmbeddingBackend` (e.g. an embedding API).
        generator: the LLM for conversation analysis and match adjudication (default:
            :func:`kgmem.llm.default_generator` — the ``[llm]`` provider (Anthropic or an OpenAI-compatible
            endpoint), or without that section the Anthropic API when a key is set, else none).
        async_driver: an existing :class:`neo4j.AsyncDriver` for the async stores (not closed by :meth:`aclose`).
        schema_step: run the schema step on the first connect (default ``[neo4j] auto_schema``);
            ``kgmem init``, which applies the schema itself, turns it off.
    """

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        driver: neo4j.Driver | None = None,
        chroma: Any | None = None,
        embedder: Embedder | EmbeddingBackend | None = None,
        concepts: ConceptExtractor | None = None,
        generator: TextGenerator | None = None,
        async_driver: neo4j.AsyncDriver | None = None,
        schema_step: bool | None = None,
    ) -> None:
        self.settings = settings or load_settings()
        self.schema_step = self.settings.neo4j.auto_schema if schema_step is None else schema_step
        self._driver = driver
        self._owns_driver = driver is None
        self._async_driver = async_driver
        self._owns_async_driver = async_driver is None
        self._chroma = chroma
        self._embedder_given = embedder
        self._embedder: Embedder | None = None
        self._concepts = concepts
        self._generator: Any = _UNSET if generator is None else generator
        self._graph: GraphStore | None = None
        self._async_graph: AsyncGraphStore | None = None
        #: the schema version the graph records after the schema step (None: not checked / unreachable)
        self.schema_version: int | None = None
        self._vectors: VectorStore | None = None
        self._sync: SyncEngines | None = None
        self._aio: AsyncEngines | None = None
        self._async_io: AsyncIO | None = None
        self._async_lock: asyncio.Lock | None = None
        self._lock = threading.RLock()  # re-entrant: an engine builds the stores inside its own _once
        self._forgetter: Forgetter | None = None
        self._async_forgetter: Forgetter | None = None
        #: which namespaces had an entity-name tombstone at the last check (the checks where events
        #: enter skip hashing word runs where none was; kgmem.tombstones.screened_op)
        self.names = NameTombstones()

    def _once(self, attr: str, build: Callable[[], Any]) -> Any:
        """The resource in ``attr``, built by ``build`` the first time (once, even across threads)."""
        if getattr(self, attr) is None:
            with self._lock:
                if getattr(self, attr) is None:
                    setattr(self, attr, build())
        return getattr(self, attr)

    # -- resources ---------------------------------------------------------------------------
    @property
    def driver(self) -> neo4j.Driver:
        """The sync Neo4j driver (the driver connects on its first query, not here)."""
        from kgmem.graph import connect

        return self._once("_driver", lambda: connect(self.settings))

    def graph_store(self, driver: neo4j.Driver) -> GraphStore:
        """A graph store on ``driver`` with this configuration's failure policy — the one place a
        :class:`~kgmem.graph.GraphStore` is built."""
        from kgmem.graph import FailurePolicy, GraphStore

        return GraphStore(driver, self.settings.neo4j.database, policy=FailurePolicy.from_settings(self.settings.neo4j))

    @property
    def graph(self) -> GraphStore:
        """The graph store; its first use is the first connect (:meth:`connect_graph`)."""
        return self._once("_graph", self.connect_graph)

    def connect_graph(self) -> GraphStore:
        """The first connect: build the graph store on the driver, then the schema step — apply the
        schema if the graph records none or an older version (unless the schema step is off).
        :attr:`graph` calls this once; call it directly only for a store of your own."""
        from kgmem.graph.schema import ensure_schema

        graph = self.graph_store(self.driver)
        if self.schema_step:
            self.schema_version = ensure_schema(graph)
        return graph

    @property
    def embedder(self) -> Embedder:
        """The embedder (the model itself loads on the first embedding)."""
        from kgmem.vectors import Embedder

        def build() -> Embedder:
            given = self._embedder_given
            if given is not None:
                return Embedder.wrap(given, self.settings.embedding)
            return Embedder(self.settings.embedding, self.settings.models_dir)

        return self._once("_embedder", build)

    @property
    def vectors(self) -> VectorStore:
        """The Chroma vector store (opened on first use; its collections carry the embedder's identity)."""
        from kgmem.vectors import VectorStore, open_chroma

        # The embedder's identity and dimension, not the setting: an injected embedder may differ.
        return self._once(
            "_vectors",
            lambda: VectorStore.for_embedder(
                self._chroma if self._chroma is not None else open_chroma(self.settings), self.embedder
            ),
        )

    @property
    def concepts(self) -> ConceptExtractor:
        """The concept extractor (its spaCy pipeline loads on the first extraction)."""
        from kgmem.concepts import ConceptExtractor

        return self._once("_concepts", lambda: ConceptExtractor(self.settings.concepts))

    @property
    def generator(self) -> TextGenerator | None:
        """The LLM shared by conversation analysis and match adjudication (None: offline extraction,
        no adjudication)."""
        if self._generator is _UNSET:
            from kgmem.llm import default_generator

            with self._lock:
                if self._generator is _UNSET:
                    self._generator = default_generator(self.settings)
        return self._generator  # type: ignore[no-any-return]

    # -- the sync engines (KGMem) --------------------------------------------------------------
    @property
    def sync(self) -> SyncEngines:
        """:class:`KGMem`'s engines, built together on first use (this connects: graph and vectors)."""
        return self._once("_sync", self._build_sync)

    @property
    def learning(self) -> LearningEngine:
        """The error→fix engine (it opens the client's spool and its replayer)."""
        return self.sync.learning

    @property
    def retrieval(self) -> Retrieval:
        """Graph RAG retrieval."""
        return self.sync.retrieval

    @property
    def turns(self) -> TurnStore:
        """The turn store."""
        return self.sync.turns

    @property
    def analysis(self) -> AnalysisService:
        """Conversation analysis (knowledge store and curator included)."""
        return self.sync.analysis

    @property
    def conversation(self) -> TurnRecorder:
        """The turn recorder (write-behind, spool) in front of the turn store."""
        return self.sync.conversation

    @property
    def callgraph(self) -> CallGraph:
        """Call-graph healing."""
        return self.sync.callgraph

    @property
    def replayer(self) -> SpoolReplayer | None:
        """The spool replayer the sync engines share (the learning engine's, on ``settings.spool_dir``)."""
        return self.sync.learning.replayer

    def _build_sync(self) -> SyncEngines:
        from kgmem.analysis import AnalysisService
        from kgmem.callgraph import CallGraph
        from kgmem.conversation import TurnStore
        from kgmem.forget.guard import spool_filter_op
        from kgmem.learning import LearningEngine
        from kgmem.learning.adjudication import adjudicator_for
        from kgmem.retrieval import Retrieval

        s = self.settings
        graph, vectors, embedder, concepts, generator = (
            self.graph,
            self.vectors,
            self.embedder,
            self.concepts,
            self.generator,
        )
        # The learning engine opens the client's spool (settings.spool_dir) with its replayer; turns,
        # session ends and manual knowledge register on the same replayer and replay in order with it.
        learning = LearningEngine(
            graph,
            vectors,
            embedder,
            s.learning,
            spool_dir=s.spool_dir,
            adjudicator=adjudicator_for(generator, s.learning),
            concepts=concepts,
        )
        retrieval = Retrieval(
            graph,
            vectors,
            embedder,
            s.retrieval.preset,
            s.retrieval.overrides(),
            query_ttl_hours=s.retrieval.query_ttl_hours,
            thompson_seed=s.retrieval.thompson_seed,
            overlay_ttl_hours=s.retrieval.overlay_ttl_hours,
            concepts=concepts,
            query_log_delay_ms=s.retrieval.query_log_delay_ms,
        )
        # While Neo4j is unreachable, turns, session ends and manual knowledge go to the spool tool
        # results use (unless learning.strict: then they raise) and are replayed by it, in order.
        if learning.replayer is not None:  # spooled events a later forget made void are not replayed
            learning.replayer.screen = functools.partial(spool_filter_op, names=self.names)
        replayer = None if s.learning.strict else learning.replayer
        turns = TurnStore(graph, vectors, embedder, concepts)
        analysis = AnalysisService(
            s, graph, vectors, embedder, turns=turns, generator=generator, replayer=replayer, names=self.names
        )
        a = s.analysis
        conversation = _recorder(a, turns, analysis, replayer)
        return SyncEngines(learning, retrieval, turns, analysis, conversation, CallGraph(graph))

    def graph_only_curator(self) -> Curator:
        """A knowledge store and curator on the graph alone (no Chroma, no model): for the commands
        that list, remove or reset items (no text changes, nothing to embed)."""
        from kgmem.analysis.curation import Curator
        from kgmem.analysis.events import AnalysisStats
        from kgmem.analysis.store import KnowledgeStore

        stats = AnalysisStats()
        return Curator(KnowledgeStore(self.graph, None, None, self.settings.analysis, stats), stats)

    # -- the async stores and engines (AsyncKGMem) ---------------------------------------------
    @property
    def async_driver(self) -> neo4j.AsyncDriver:
        """The async Neo4j driver (the sync driver's options; connects on its first query)."""
        from kgmem.async_stores import connect_async

        return self._once("_async_driver", lambda: connect_async(self.settings))

    @property
    def async_graph(self) -> AsyncGraphStore:
        """The graph store on the async driver, with the same failure policy as :attr:`graph`."""
        from kgmem.async_stores import AsyncGraphStore
        from kgmem.graph import FailurePolicy

        return self._once(
            "_async_graph",
            lambda: AsyncGraphStore(
                self.async_driver, self.settings.neo4j.database, policy=FailurePolicy.from_settings(self.settings.neo4j)
            ),
        )

    @property
    def aio(self) -> AsyncEngines:
        """:class:`AsyncKGMem`'s engines (no I/O to build: they run on the async stores)."""
        return self._once("_aio", self._build_async)

    def _build_async(self) -> AsyncEngines:
        from kgmem.analysis import AnalysisService
        from kgmem.callgraph import CallGraph
        from kgmem.conversation import TurnStore
        from kgmem.forget.guard import spool_filter_op
        from kgmem.learning import LearningEngine
        from kgmem.learning.adjudication import adjudicator_for
        from kgmem.retrieval.service import RetrievalEngine
        from kgmem.spool import Spool, SpoolReplayer

        s, r, concepts, generator = self.settings, self.settings.retrieval, self.concepts, self.generator
        retrieval = RetrievalEngine(
            r.preset,
            r.overrides(),
            query_ttl_hours=r.query_ttl_hours,
            thompson_seed=r.thompson_seed,
            overlay_ttl_hours=r.overlay_ttl_hours,
            concepts=concepts,
            query_log_delay_ms=r.query_log_delay_ms,
        )
        # The sync client's spool: the same files, replayed by the same operations; a replay already
        # running in this process is skipped rather than waited for (wait=False: the event loop).
        replayer = SpoolReplayer(Spool(s.spool_dir), self.async_graph, wait=False)
        # spooled events a later forget made void are not replayed
        replayer.screen = functools.partial(spool_filter_op, names=self.names)
        learning = LearningEngine(
            None,
            None,
            None,
            s.learning,
            replayer=replayer,
            adjudicator=adjudicator_for(generator, s.learning),
            concepts=concepts,
        )
        writes = None if s.learning.strict else replayer  # strict: raise instead of spooling
        turns = TurnStore(None, None, None, concepts)
        # Analysis jobs and write-behind batches are queued on asyncio tasks and run with run_async.
        analysis = AnalysisService(
            s,
            None,
            None,
            None,
            turns=turns,
            generator=generator,
            replayer=writes,
            arun=self.run_async,
            names=self.names,
        )
        a = s.analysis
        conversation = _recorder(a, turns, analysis, writes, arun=self.run_async)
        return AsyncEngines(replayer, learning, retrieval, turns, conversation, analysis, CallGraph(None))

    async def run_async(self, op: Op[T]) -> T:
        """Run an engine operation on the async stores (opened on first use)."""
        from kgmem.runner import arun

        return await arun(op, await self.open_async())

    async def open_async(self) -> AsyncIO:
        """The async first connect (once): the schema step with one async read, then the vector store
        (Chroma's async HTTP client, or the embedded one in a worker thread). Returns the I/O the
        async engines' operations run on."""
        if self._async_io is not None:
            return self._async_io
        if self._async_lock is None:
            self._async_lock = asyncio.Lock()
        async with self._async_lock:
            if self._async_io is None:
                from kgmem.async_stores import open_async_vectors
                from kgmem.runner import AsyncIO
                from kgmem.vectors.store import CUSTOM

                if self.schema_step:
                    await self._async_schema_step()
                embedder = self.embedder
                # Its identity may hash weights or load an ONNX graph (kgmem/vectors/models.py): off the loop.
                model, dimension = await asyncio.to_thread(lambda: (embedder.name, embedder.dimension))
                vectors = await open_async_vectors(self.settings, model, dimension, embedder.configured_by or CUSTOM)
                self._async_io = AsyncIO(self.async_graph, vectors, embedder)
        return self._async_io

    async def _async_schema_step(self) -> None:
        """The schema step on the async driver: one read of the recorded version; only a graph without
        the schema (or with an older one) gets it, applied on a short-lived sync driver in a worker
        thread (the schema file's DDL runs on the sync store)."""
        from kgmem.graph.schema import needs_schema, version_of
        from kgmem.graph.store import UNREACHABLE

        try:
            recorded = version_of(await self.async_graph.read("schema_version"))
        except UNREACHABLE as exc:
            log.warning(
                "Neo4j unreachable, graph schema not checked (%s); it is checked when the next "
                "client connects, or run `kgmem init`",
                exc,
            )
            return
        if needs_schema(recorded):
            self.schema_version = await asyncio.to_thread(self._schema_on_own_driver)
        else:
            self.schema_version = recorded

    def _schema_on_own_driver(self) -> int | None:
        from kgmem.graph import connect
        from kgmem.graph.schema import ensure_schema

        with connect(self.settings) as driver:
            return ensure_schema(self.graph_store(driver))

    @property
    def async_io(self) -> AsyncIO | None:
        """The async I/O after :meth:`open_async` (None before)."""
        return self._async_io

    # -- forgetting (kgmem/forget) --------------------------------------------------------------
    @property
    def forgetter(self) -> Forgetter:
        """Forget for :class:`~kgmem.KGMem`: the client's spool, analysis windows and collections."""
        return self._once("_forgetter", lambda: self._build_forgetter(self.sync.analysis))

    @property
    def async_forgetter(self) -> Forgetter:
        """Forget for :class:`~kgmem.AsyncKGMem` (its analysis windows)."""
        return self._once("_async_forgetter", lambda: self._build_forgetter(self.aio.analysis))

    def _build_forgetter(self, analysis: AnalysisService) -> Forgetter:
        from kgmem.forget import Forgetter, Hooks

        hooks = Hooks(
            drop_windows=analysis.drop_windows,
            drop_collections=self._drop_collections,
            forgot_name=self.names.forgot_name,
        )
        return Forgetter(self.settings.forget, self.settings.spool_dir, hooks)

    def _drop_collections(self, ns: str) -> int:
        """Delete ``ns``'s vector collections (forget everything); returns the vectors they still held."""
        from kgmem.kinds import KINDS

        names = [k.name for k in KINDS]
        left = sum(self.vectors.count(ns, name) for name in names)
        self.vectors.drop_namespace(ns, names)
        return left

    # -- lifecycle ------------------------------------------------------------------------------
    def close(self) -> None:
        """Close what was built, in order: store queued turns, flush pending conversation analysis,
        write deferred error occurrences, release the spool segment, then the driver if this object
        created it (a caller's driver stays open)."""
        sync = self._sync
        if sync is not None:
            sync.conversation.close()
            sync.analysis.close()
            sync.retrieval.close()
            sync.learning.close()  # deferred occurrences written (or left to the spool), flusher stopped
            if sync.learning.spool is not None:  # release the segment: another client may replay it now
                sync.learning.spool.close()
            self._sync = None
        if self._owns_driver and self._driver is not None:
            self._driver.close()
            self._driver = None
            self._graph = None

    async def aclose(self) -> None:
        """Close the async side: wait for background writes, release the spool segment, close the async
        driver if this object created it; then :meth:`close` the sync side (if any was built)."""
        if self._aio is not None:  # queued turns stored and queued analyses run while the stores are open
            await self._aio.conversation.aclose()
            await self._aio.analysis.aclose()
        if self._async_io is not None:
            await self._async_io.close()
            self._async_io = None
        if self._aio is not None and self._aio.learning.spool is not None:
            self._aio.learning.spool.close()
        if self._owns_async_driver and self._async_driver is not None:
            await self._async_driver.close()
            self._async_driver = None
            self._async_graph = None
        self.close()

    def __enter__(self) -> Engines:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _recorder(
    a: AnalysisSettings,
    turns: TurnStore,
    analysis: AnalysisService,
    replayer: SpoolReplayer | None,
    arun: Callable[[Op[Any]], Awaitable[Any]] | None = None,
) -> TurnRecorder:
    """The turn recorder in front of ``turns`` for either client: write-behind as ``a`` (``[analysis]``) says,
    each stored turn and ended session handed to ``analysis``, turns Neo4j refused to ``replayer``
    (None: raised). ``arun`` runs its operations on the async stores (None: the sync ones)."""
    from kgmem.conversation.recorder import TurnRecorder

    return TurnRecorder(
        turns,
        analysis.counters.count,
        replayer=replayer,
        write_behind=a.write_behind,
        queue_size=a.write_behind_queue,
        batch_size=a.write_behind_batch,
        flush_timeout_s=a.flush_timeout_s,
        on_stored=analysis.observe_turn,
        on_session_end=analysis.end_session,
        arun=arun,
    )

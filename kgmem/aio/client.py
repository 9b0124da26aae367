"""``AsyncKGMem``: the asyncio client, on the neo4j async driver and Chroma's async HTTP client.

It runs the very operations :class:`kgmem.KGMem` runs — the engines' generators of I/O
requests (:mod:`kgmem.runner`) — with :func:`kgmem.runner.arun` instead of
:func:`kgmem.runner.run`; validation, planning, ranking, rendering and every Cypher file
are the sync client's. The embedding model (and an embedded Chroma) run in worker threads.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from kgmem.aio.stores import AsyncGraphStore, connect_async, open_async_vectors
from kgmem.analysis import AnalysisService
from kgmem.callgraph import CallGraph, HealResult
from kgmem.ingest.ingester import IngestReport, ingest_op
from kgmem.llm import TextGenerator, default_generator
from kgmem.reports import report_op
from kgmem.graph.schema import apply_schema_with, needs_schema, version_of
from kgmem.graph.store import UNREACHABLE, FailurePolicy
from kgmem.concepts import ConceptExtractor
from kgmem.config import Settings, load_settings, resolve_namespace
from kgmem.conversation import Turn, TurnStore
from kgmem.conversation.recorder import TurnRecorder
from kgmem.kwonly import keyword_only
from kgmem.learning import BatchResult, FixOutcome, LearningEngine, Observation, ToolEvent
from kgmem.learning.adjudication import adjudicator_for
from kgmem.spool import Spool, SpoolReplayer
from kgmem.retrieval import Context, Judgement, SearchResult
from kgmem.retrieval.service import RetrievalEngine
from kgmem.runner import AsyncIO, Op, arun
from kgmem.vectors import Embedder, EmbeddingBackend
from kgmem.vectors.store import CUSTOM

log = logging.getLogger(__name__)


class AsyncKGMem:
    """Agent-facing asyncio client (``async with AsyncKGMem(settings) as mem: await mem.search(...)``).

    Every feature of :class:`kgmem.KGMem`, on the same operations (:mod:`kgmem.runner`): learning
    (:meth:`tool_result`, :meth:`tool_results`, :meth:`resolve`, :meth:`fix_applied`, :meth:`correction`),
    retrieval (:meth:`search`, :meth:`context`, :meth:`feedback`), conversation and its analysis
    (:meth:`turn`, :meth:`end_session`, :meth:`wait_for_analysis`, :meth:`analysis_stats`; analysis
    runs on an asyncio task, the model call or the offline extractor in a worker thread; write-behind
    of turns on an asyncio queue), knowledge (:meth:`add_knowledge`, :meth:`learnings`), :meth:`ingest`,
    :meth:`report`, the call graph (:meth:`record_calls`, :meth:`observe_changes`) and :meth:`flush`;
    the method docs are :class:`kgmem.KGMem`'s. Like it, while Neo4j is unreachable tool results, turns,
    manual knowledge and session ends go to the spool (``settings.spool_dir``) and are replayed once
    it answers (:meth:`replay_spool`, and before the next write). Use it from one event loop
    (docs/architecture.md, "Async client").

    Args:
        settings: configuration; read from the environment and ``kgmem.toml`` when omitted.
        driver: an existing :class:`neo4j.AsyncDriver` (not closed by :meth:`aclose`).
        embedder: an existing :class:`~kgmem.vectors.Embedder` (share one with a sync client to load the
            model once per process), or your own :class:`~kgmem.vectors.EmbeddingBackend`.
        generator: the LLM for conversation analysis and for judging close error matches
            (``learning.adjudicate_band``); its calls run in a worker thread. By default the Anthropic
            API when a key is set, else kgmem's offline extractor and the matching model alone.
    """

    def __init__(self, settings: Settings | None = None, *, driver: Any | None = None,
                 embedder: Embedder | EmbeddingBackend | None = None, generator: TextGenerator | None = None) -> None:
        self.settings = settings or load_settings()
        self.namespace = self.settings.namespace
        self._owns_driver = driver is None
        self.driver = driver if driver is not None else connect_async(self.settings)
        self.graph = AsyncGraphStore(self.driver, self.settings.neo4j.database,
                                     policy=FailurePolicy.from_settings(self.settings.neo4j))
        self.embedder = (Embedder.wrap(embedder, self.settings.embedding) if embedder is not None
                         else Embedder(self.settings.embedding, self.settings.models_dir))
        self.vectors: Any = None  # opened by open() (the async HTTP client is created by a coroutine)
        self.io: AsyncIO | None = None
        # Concept extraction runs inside the operations (a few ms of CPU per text, on the loop).
        self.concepts = ConceptExtractor(self.settings.concepts)
        r = self.settings.retrieval
        self.retrieval = RetrievalEngine(r.preset, r.overrides(), query_ttl_hours=r.query_ttl_hours,
                                         thompson_seed=r.thompson_seed, overlay_ttl_hours=r.overlay_ttl_hours,
                                         concepts=self.concepts)
        # The sync engines' operations, run here on the async stores (their sync stores stay unset).
        # The spool is the sync client's: the same files, replayed by the same operations; a replay
        # already running in this process is skipped rather than waited for (wait=False: the loop).
        replayer = SpoolReplayer(Spool(self.settings.spool_dir), self.graph, wait=False)
        generator = generator if generator is not None else default_generator(self.settings)
        self.learning = LearningEngine(None, None, None, self.settings.learning, replayer=replayer,
                                       adjudicator=adjudicator_for(generator, self.settings.learning),
                                       concepts=self.concepts)
        writes = None if self.settings.learning.strict else replayer  # strict: raise instead of spooling
        self.turns = TurnStore(None, None, None, self.concepts)
        # -- conversation, its analysis and the call graph: the sync client's engines; analysis jobs and
        #    write-behind batches are queued on asyncio tasks and run with self._run (kgmem.runner) --
        self.analysis = AnalysisService(self.settings, None, None, None, turns=self.turns, generator=generator,
                                        replayer=writes, arun=self._run)
        self.counters, self.knowledge, self.curator = self.analysis.counters, self.analysis.store, self.analysis.curator
        a = self.settings.analysis
        self.conversation = TurnRecorder(
            self.turns, self.counters.count, replayer=writes, write_behind=a.write_behind,
            queue_size=a.write_behind_queue, batch_size=a.write_behind_batch, flush_timeout_s=a.flush_timeout_s,
            on_stored=self.analysis.observe_turn, on_session_end=self.analysis.end_session, arun=self._run)
        self.callgraph = CallGraph(None)

    async def open(self) -> "AsyncKGMem":
        """The first connect (``async with`` and the first call run it): the schema step, then the
        vector store."""
        if self.io is None:
            if self.settings.neo4j.auto_schema:
                await self._ensure_schema()
            # Its identity may hash weights or load an ONNX graph (kgmem/vectors/models.py): off the loop.
            model, dimension = await asyncio.to_thread(lambda: (self.embedder.name, self.embedder.dimension))
            self.vectors = await open_async_vectors(self.settings, model, dimension, self.embedder.configured_by or CUSTOM)
            self.io = AsyncIO(self.graph, self.vectors, self.embedder)
        return self

    async def _ensure_schema(self) -> None:
        """The schema step of :class:`kgmem.app.Engines`: one read of the recorded version; only a
        graph without the schema (or with an older one) gets it, applied on a short-lived sync
        driver in a worker thread (the schema file's DDL runs on the sync store)."""
        try:
            recorded = version_of(await self.graph.read("schema_version"))
        except UNREACHABLE as exc:
            log.warning("Neo4j unreachable, graph schema not checked (%s); it is checked when the next "
                        "client connects, or run `kgmem init`", exc)
            return
        if needs_schema(recorded):
            await asyncio.to_thread(apply_schema_with, self.settings)

    async def _run(self, op: Op[Any]) -> Any:
        await self.open()
        assert self.io is not None
        return await arun(op, self.io)

    def _ns(self, ns: str | None) -> str:
        return resolve_namespace(ns, self.namespace)

    # -- learning ---------------------------------------------------------------------------------
    @keyword_only
    async def tool_result(self, tool: str, params: dict[str, Any] | None = None, *, result: Any = None,
                          error: str | BaseException | None = None, session: str | None = None,
                          ns: str | None = None) -> Observation:
        """See :meth:`kgmem.KGMem.tool_result`."""
        return await self._run(self.learning.tool_result_op(self._ns(ns), tool, params, error=error, session=session))

    @keyword_only
    async def tool_results(self, events: Iterable[ToolEvent | dict[str, Any]], *, ns: str | None = None,
                           index: bool = True) -> BatchResult:
        """See :meth:`kgmem.KGMem.tool_results`."""
        return await self._run(self.learning.tool_results_op(self._ns(ns), events, index=index))

    @keyword_only
    async def resolve(self, error: Observation | str, fix: str, *, success: bool = True, tool: str | None = None,
                      session: str | None = None, ns: str | None = None) -> FixOutcome:
        """See :meth:`kgmem.KGMem.resolve`."""
        return await self._run(self.learning.resolve_op(self._ns(ns), error, fix, success, tool=tool,
                                                        session=session))

    @keyword_only
    async def fix_applied(self, error: Observation | str, fix: str, *, success: bool, tool: str | None = None,
                          session: str | None = None, ns: str | None = None) -> FixOutcome:
        """See :meth:`kgmem.KGMem.fix_applied`."""
        return await self.resolve(error, fix, success=success, tool=tool, session=session, ns=ns)

    async def correction(self, text: str, *, error: Observation | str | None = None, tool: str | None = None,
                         ns: str | None = None) -> FixOutcome | None:
        """See :meth:`kgmem.KGMem.correction`."""
        ns = self._ns(ns)
        await self.add_knowledge(text, type="correction", ns=ns)
        if error is None:
            return None
        return await self._run(self.learning.resolve_op(ns, error, text, True, tool=tool, source="user",
                                                        recovery=False))

    @keyword_only
    async def index_errors(self, *, ns: str | None = None) -> int:
        """See :meth:`kgmem.KGMem.index_errors`."""
        return await self._run(self.learning.index_pending_op(self._ns(ns)))

    # -- retrieval ------------------------------------------------------------------------------
    @keyword_only
    async def search(self, query: str, k: int = 10, *, ns: str | None = None, session: str | None = None,
                     kinds: Sequence[str] | str | None = None, preset: str | None = None,
                     explain: bool = False) -> SearchResult:
        """See :meth:`kgmem.KGMem.search`."""
        await self.conversation.flush_async()  # write-behind: this client's own turns are searchable at once
        return await self._run(self.retrieval.search_op(query, self._ns(ns), k, session, kinds, preset,
                                                        explain=explain))

    @keyword_only
    async def context(self, query: str, max_tokens: int = 1000, *, ns: str | None = None,
                      **search_kwargs: Any) -> Context:
        """See :meth:`kgmem.KGMem.context`."""
        if "preset" in search_kwargs:
            search_kwargs["preset_name"] = search_kwargs.pop("preset")
        await self.conversation.flush_async()
        return await self._run(self.retrieval.context_op(query, self._ns(ns), max_tokens, **search_kwargs))

    @keyword_only
    async def feedback(self, query_id: str, *, used: Sequence[Any] | str = (), outcome: str | float = "included",
                       response: str | None = None, ns: str | None = None) -> Judgement:
        """See :meth:`kgmem.KGMem.feedback` (one judgement per query id; a repeat returns ``counted=False``)."""
        return await self._run(self.retrieval.feedback_op(query_id, used, outcome, response,
                                                          None if ns is None else self._ns(ns)))

    # -- conversation and knowledge -----------------------------------------------------------------
    @keyword_only
    async def turn(self, *, session: str, role: str, text: str, ref: str | None = None, ts: str | None = None,
                   ns: str | None = None) -> str:
        """Store one conversation turn and return its message id; analysis runs in the background
        (see :meth:`kgmem.KGMem.turn`; with ``[analysis] write_behind`` queued and stored in batches)."""
        return await self.conversation.turn_async(self._ns(ns), Turn(session, role, text, ref, ts), self._run)

    @keyword_only
    async def end_session(self, session: str, *, ns: str | None = None) -> None:
        """Mark ``session`` ended and merge its retrieval feedback into the global posteriors
        (see :meth:`kgmem.KGMem.end_session`)."""
        ns = self._ns(ns)
        await self.conversation.flush_async()  # the session's turns are stored before analysis reads them back
        await self._run(self.conversation.close_session_op(ns, session))  # spooled when Neo4j is down
        await self._run(self.retrieval.close_session_op(ns, session))

    @keyword_only
    async def add_knowledge(self, content: str, type: str = "fact", *, ns: str | None = None) -> dict[str, Any]:
        """See :meth:`kgmem.KGMem.add_knowledge`."""
        return await self._run(self.curator.add_op(self._ns(ns), type, content))

    @keyword_only
    async def learnings(self, *, type: str | None = None, min_confidence: float = 0.0,
                        include_inactive: bool = False, ns: str | None = None) -> list[dict[str, Any]]:
        """See :meth:`kgmem.KGMem.learnings`."""
        return await self._run(self.knowledge.list_op(self._ns(ns), type=type, min_confidence=min_confidence,
                                                      include_inactive=include_inactive))

    async def replay_spool(self) -> int:
        """See :meth:`kgmem.KGMem.replay_spool` (0 while another replay of this client runs)."""
        return await self._run(self.learning.replay_op())

    async def flush(self) -> None:
        """Write what this client holds back now: queued turns (``analysis.write_behind``) and
        background writes (the query log); see :meth:`kgmem.KGMem.flush`."""
        await self.conversation.flush_async()
        if self.io is not None:
            await self.io.flush()

    async def wait_for_analysis(self, timeout: float | None = None) -> bool:
        """Wait until queued turns are stored and queued conversation analyses have run; False on timeout."""
        return await self.conversation.wait_async(timeout) and await self.analysis.wait_async(timeout)

    @keyword_only
    async def analysis_stats(self, *, ns: str | None = None) -> dict[str, Any]:
        """See :meth:`kgmem.KGMem.analysis_stats`."""
        return self.analysis.stats(self._ns(ns))

    # -- bulk ingest, call graph and reports ---------------------------------------------------------
    @keyword_only
    async def ingest(self, source: str | Path | Iterable[Any], *, ns: str | None = None, batch_size: int = 256,
                     progress: bool = False, analyze: bool = False) -> IngestReport:
        """See :meth:`kgmem.KGMem.ingest` (the file is read in a worker thread, in chunks)."""
        return await self._run(ingest_op(self, source, self._ns(ns), batch_size, progress, analyze))

    @keyword_only
    async def record_calls(self, calls: Sequence[tuple[str, str]], *, ns: str | None = None) -> int:
        """See :meth:`kgmem.KGMem.record_calls`."""
        return await self._run(self.callgraph.add_calls_op(self._ns(ns), calls))

    @keyword_only
    async def observe_changes(self, functions_changed: Sequence[str], *, session: str | None = None,
                              ns: str | None = None) -> HealResult:
        """See :meth:`kgmem.KGMem.observe_changes`."""
        return await self._run(self.callgraph.observe_op(self._ns(ns), functions_changed, session))

    @keyword_only
    async def report(self, name: str, *, ns: str | None = None, **params: Any) -> list[dict[str, Any]]:
        """See :meth:`kgmem.KGMem.report`."""
        return (await self._run(report_op(name, {"ns": self._ns(ns), **params}))).rows

    # -- lifecycle --------------------------------------------------------------------------------
    async def aclose(self) -> None:
        """Store queued turns, finish queued analyses, wait for background writes, then close the
        driver if this client created it."""
        await self.conversation.aclose()
        await self.analysis.aclose()
        if self.io is not None:
            await self.io.close()
        if self.learning.spool is not None:  # release the segment: another client may replay it now
            self.learning.spool.close()
        if self._owns_driver:
            await self.driver.close()

    async def __aenter__(self) -> "AsyncKGMem":
        return await self.open()

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

"""``AsyncKGMem``: the asyncio client, on the neo4j async driver and Chroma's async HTTP client.

It runs the very operations :class:`kgmem.KGMem` runs — the engines' generators of I/O
requests (:mod:`kgmem.runner`) — with :func:`kgmem.runner.arun` instead of
:func:`kgmem.runner.run`; validation, planning, ranking, rendering and every Cypher file
are the sync client's. The embedding model (and an embedded Chroma) run in worker threads.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from kgmem.analysis import AnalysisService
from kgmem.analysis.curation import Curator
from kgmem.analysis.events import AnalysisStats
from kgmem.analysis.store import KnowledgeStore
from kgmem.app import Engines
from kgmem.async_stores import AsyncGraphStore
from kgmem.callgraph import CallGraph, HealResult
from kgmem.concepts import ConceptExtractor
from kgmem.config import Settings, resolve_namespace
from kgmem.conversation import Turn, TurnStore
from kgmem.conversation.recorder import TurnRecorder
from kgmem.forget import ForgetResult, default_by, parse_scope
from kgmem.ingest.ingester import IngestReport, ingest_op
from kgmem.kwonly import keyword_only
from kgmem.learning import BatchResult, FixOutcome, LearningEngine, Observation, ToolEvent
from kgmem.llm import TextGenerator
from kgmem.reports import report_op
from kgmem.retrieval import Context, Judgement, SearchResult
from kgmem.retrieval.service import RetrievalEngine
from kgmem.runner import AsyncIO, Op, arun
from kgmem.vectors import Embedder, EmbeddingBackend

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
            (``learning.adjudicate_band``); its calls run in a worker thread. By default the ``[llm]``
            provider (Anthropic or an OpenAI-compatible endpoint), or without that section the Anthropic
            API when a key is set, else kgmem's offline extractor and the matching model alone.
    """

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        driver: Any | None = None,
        embedder: Embedder | EmbeddingBackend | None = None,
        generator: TextGenerator | None = None,
    ) -> None:
        # The composition root builds the async driver and stores and the engines' operations, each on
        # first use: constructing a client connects to nothing and loads nothing (open() connects).
        self.engines = Engines(settings, async_driver=driver, embedder=embedder, generator=generator)
        self.settings = self.engines.settings
        self.namespace = self.settings.namespace

    # -- what the client runs on: the root's, built on first use ------------------------
    @property
    def driver(self) -> Any:
        """The :class:`neo4j.AsyncDriver`."""
        return self.engines.async_driver

    @property
    def graph(self) -> AsyncGraphStore:
        """The graph store on the async driver."""
        return self.engines.async_graph

    @property
    def embedder(self) -> Embedder:
        """The embedder (the model loads on the first embedding, in a worker thread)."""
        return self.engines.embedder

    @property
    def concepts(self) -> ConceptExtractor:
        """The concept extractor (run inside the operations, in a worker thread: a few ms of CPU per text)."""
        return self.engines.concepts

    @property
    def io(self) -> AsyncIO | None:
        """The async stores the operations run on (None before :meth:`open`)."""
        return self.engines.async_io

    @property
    def vectors(self) -> Any:
        """The async vector store (None before :meth:`open`: the async HTTP client is created by a coroutine)."""
        return None if self.io is None else self.io.vectors

    @property
    def retrieval(self) -> RetrievalEngine:
        """Retrieval's operations (run on the async stores)."""
        return self.engines.aio.retrieval

    @property
    def learning(self) -> LearningEngine:
        """The error→fix engine's operations."""
        return self.engines.aio.learning

    @property
    def turns(self) -> TurnStore:
        """The turn store's operations."""
        return self.engines.aio.turns

    @property
    def conversation(self) -> TurnRecorder:
        """The turn recorder (store or spool)."""
        return self.engines.aio.conversation

    @property
    def counters(self) -> AnalysisStats:
        """Conversation-analysis counters of this client."""
        return self.engines.aio.counters

    @property
    def knowledge(self) -> KnowledgeStore:
        """The knowledge store's operations."""
        return self.engines.aio.knowledge

    @property
    def curator(self) -> Curator:
        """Manual knowledge (store or spool)."""
        return self.engines.aio.curator

    @property
    def analysis(self) -> AnalysisService:
        """Conversation analysis: jobs queued on asyncio tasks, the model call or the offline extractor
        in a worker thread."""
        return self.engines.aio.analysis

    @property
    def callgraph(self) -> CallGraph:
        """The call graph's operations."""
        return self.engines.aio.callgraph

    async def open(self) -> AsyncKGMem:
        """The first connect (``async with`` and the first call run it): the schema step, then the
        vector store (:meth:`kgmem.app.Engines.open_async`)."""
        await self.engines.open_async()
        return self

    async def _run(self, op: Op[Any]) -> Any:
        return await arun(op, await self.engines.open_async())

    def _ns(self, ns: str | None) -> str:
        return resolve_namespace(ns, self.namespace)

    # -- learning ---------------------------------------------------------------------------------
    @keyword_only
    async def tool_result(
        self,
        tool: str,
        params: dict[str, Any] | None = None,
        *,
        result: Any = None,
        error: str | BaseException | None = None,
        session: str | None = None,
        ns: str | None = None,
    ) -> Observation:
        """See :meth:`kgmem.KGMem.tool_result`."""
        return await self._run(self.learning.tool_result_op(self._ns(ns), tool, params, error=error, session=session))

    @keyword_only
    async def tool_results(
        self, events: Iterable[ToolEvent | dict[str, Any]], *, ns: str | None = None, index: bool = True
    ) -> BatchResult:
        """See :meth:`kgmem.KGMem.tool_results`."""
        return await self._run(self.learning.tool_results_op(self._ns(ns), events, index=index))

    @keyword_only
    async def resolve(
        self,
        error: Observation | str,
        fix: str,
        *,
        success: bool = True,
        tool: str | None = None,
        session: str | None = None,
        occurrence: str | None = None,
        ns: str | None = None,
    ) -> FixOutcome:
        """See :meth:`kgmem.KGMem.resolve`."""
        return await self._run(
            self.learning.resolve_op(
                self._ns(ns), error, fix, success, tool=tool, session=session, occurrence=occurrence
            )
        )

    @keyword_only
    async def fix_applied(
        self,
        error: Observation | str,
        fix: str,
        *,
        success: bool,
        tool: str | None = None,
        session: str | None = None,
        occurrence: str | None = None,
        ns: str | None = None,
    ) -> FixOutcome:
        """See :meth:`kgmem.KGMem.fix_applied`."""
        return await self.resolve(error, fix, success=success, tool=tool, session=session, occurrence=occurrence, ns=ns)

    async def correction(
        self, text: str, *, error: Observation | str | None = None, tool: str | None = None, ns: str | None = None
    ) -> FixOutcome | None:
        """See :meth:`kgmem.KGMem.correction`."""
        ns = self._ns(ns)
        await self.add_knowledge(text, type="correction", ns=ns)
        if error is None:
            return None
        return await self._run(
            self.learning.resolve_op(ns, error, text, True, tool=tool, source="user", recovery=False)
        )

    @keyword_only
    async def index_errors(self, *, ns: str | None = None) -> int:
        """See :meth:`kgmem.KGMem.index_errors`."""
        return await self._run(self.learning.index_pending_op(self._ns(ns)))

    # -- retrieval ------------------------------------------------------------------------------
    @keyword_only
    async def search(
        self,
        query: str,
        k: int = 10,
        *,
        ns: str | None = None,
        session: str | None = None,
        kinds: Sequence[str] | str | None = None,
        preset: str | None = None,
        explain: bool = False,
        as_of: datetime | str | None = None,
    ) -> SearchResult:
        """See :meth:`kgmem.KGMem.search`."""
        await self.conversation.flush_async()  # write-behind: this client's own turns are searchable at once
        return await self._run(
            self.retrieval.search_op(query, self._ns(ns), k, session, kinds, preset, explain=explain, as_of=as_of)
        )

    @keyword_only
    async def context(
        self, query: str, max_tokens: int = 1000, *, ns: str | None = None, **search_kwargs: Any
    ) -> Context:
        """See :meth:`kgmem.KGMem.context`."""
        if "preset" in search_kwargs:
            search_kwargs["preset_name"] = search_kwargs.pop("preset")
        await self.conversation.flush_async()
        return await self._run(self.retrieval.context_op(query, self._ns(ns), max_tokens, **search_kwargs))

    @keyword_only
    async def feedback(
        self,
        query_id: str,
        *,
        used: Sequence[Any] | str = (),
        outcome: str | float = "included",
        response: str | None = None,
        ns: str | None = None,
    ) -> Judgement:
        """See :meth:`kgmem.KGMem.feedback` (one judgement per query id; a repeat returns ``counted=False``)."""
        return await self._run(
            self.retrieval.feedback_op(query_id, used, outcome, response, None if ns is None else self._ns(ns))
        )

    # -- conversation and knowledge -----------------------------------------------------------------
    @keyword_only
    async def turn(
        self,
        *,
        session: str,
        role: str,
        text: str,
        ref: str | None = None,
        ts: str | None = None,
        ns: str | None = None,
    ) -> str:
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
    async def learnings(
        self,
        *,
        type: str | None = None,
        min_confidence: float = 0.0,
        include_inactive: bool = False,
        ns: str | None = None,
    ) -> list[dict[str, Any]]:
        """See :meth:`kgmem.KGMem.learnings`."""
        return await self._run(
            self.knowledge.list_op(
                self._ns(ns), type=type, min_confidence=min_confidence, include_inactive=include_inactive
            )
        )

    @keyword_only
    async def history(self, id: str, *, ns: str | None = None) -> list[dict[str, Any]]:
        """See :meth:`kgmem.KGMem.history`."""
        return list(await self._run(self.knowledge.history_op(self._ns(ns), id)))

    async def replay_spool(self) -> int:
        """See :meth:`kgmem.KGMem.replay_spool` (0 while another replay of this client runs)."""
        return await self._run(self.learning.replay_spool_op())

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
    async def ingest(
        self,
        source: str | Path | Iterable[Any],
        *,
        ns: str | None = None,
        batch_size: int = 256,
        progress: bool = False,
        analyze: bool = False,
    ) -> IngestReport:
        """See :meth:`kgmem.KGMem.ingest` (the file is read in a worker thread, in chunks)."""
        return await self._run(ingest_op(self, source, self._ns(ns), batch_size, progress, analyze))

    @keyword_only
    async def record_calls(self, calls: Sequence[tuple[str, str]], *, ns: str | None = None) -> int:
        """See :meth:`kgmem.KGMem.record_calls`."""
        return await self._run(self.callgraph.add_calls_op(self._ns(ns), calls))

    @keyword_only
    async def observe_changes(
        self, functions_changed: Sequence[str], *, session: str | None = None, ns: str | None = None
    ) -> HealResult:
        """See :meth:`kgmem.KGMem.observe_changes`."""
        return await self._run(self.callgraph.observe_op(self._ns(ns), functions_changed, session))

    @keyword_only
    async def report(self, name: str, *, ns: str | None = None, **params: Any) -> list[dict[str, Any]]:
        """See :meth:`kgmem.KGMem.report`."""
        return (await self._run(report_op(name, {"ns": self._ns(ns), **params}))).rows

    # -- forgetting (kgmem/forget; docs/forgetting.md) -----------------------------------------
    @keyword_only
    async def forget(
        self,
        *,
        id: str | None = None,
        session: str | None = None,
        entity: str | None = None,
        everything: bool = False,
        dry_run: bool = False,
        by: str | None = None,
        ns: str | None = None,
    ) -> ForgetResult:
        """See :meth:`kgmem.KGMem.forget`."""
        scope = parse_scope(id=id, session=session, entity=entity, everything=everything)
        ns = self._ns(ns)
        if not dry_run:
            await self.flush()
        forgetter = self.engines.async_forgetter
        return await self._run(forgetter.forget_op(ns, scope, dry_run=dry_run, by=by or default_by("python-async")))

    # -- lifecycle --------------------------------------------------------------------------------
    async def aclose(self) -> None:
        """Wait for background writes, release the spool segment, then close the driver if this
        client created it (:meth:`kgmem.app.Engines.aclose`)."""
        await self.engines.aclose()

    async def __aenter__(self) -> AsyncKGMem:
        return await self.open()

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

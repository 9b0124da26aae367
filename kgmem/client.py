"""``KGMem``: the Python client agents call.

A thin adapter over the composition root (:class:`kgmem.app.Engines`), which owns (or is
handed) the expensive resources — the Neo4j driver, the Chroma client, the embedding model —
and the engines that do the work, each built on first use. The operations and their
arguments are declared in :mod:`kgmem.api` (``tests/unit/test_api.py`` holds this class to it).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import neo4j

from kgmem.analysis import AnalysisService
from kgmem.app import Engines
from kgmem.callgraph import CallGraph, HealResult
from kgmem.concepts import ConceptExtractor
from kgmem.config import Settings, resolve_namespace
from kgmem.conversation import Turn, TurnStore
from kgmem.conversation.recorder import TurnRecorder
from kgmem.forget import ForgetResult, default_by, parse_scope
from kgmem.graph import GraphStore
from kgmem.ingest.ingester import IngestReport
from kgmem.kwonly import keyword_only
from kgmem.learning import BatchResult, FixOutcome, LearningEngine, Observation, ToolEvent
from kgmem.llm import TextGenerator
from kgmem.retrieval import Context, Judgement, Retrieval, SearchResult
from kgmem.runner import run
from kgmem.vectors import Embedder, EmbeddingBackend, VectorStore

log = logging.getLogger(__name__)


class KGMem:
    """Agent-facing client.

    Args:
        settings: configuration; read from the environment and ``kgmem.toml`` when omitted.
        driver: an existing Neo4j driver to use (not closed by :meth:`close`).
        chroma: an existing Chroma client to use.
        embedder: an existing :class:`~kgmem.vectors.Embedder` (the model is loaded once per process
            if you share it), or your own :class:`~kgmem.vectors.EmbeddingBackend` (e.g. an embedding
            API; its ``name`` and ``dimension`` are recorded with the vectors).
        generator: the LLM for conversation analysis and for judging close error matches
            (``learning.adjudicate_band``); by default the ``[llm]`` provider (Anthropic or an
            OpenAI-compatible endpoint), or without that section the Anthropic API when a key is set,
            else kgmem's offline extractor and the matching model alone.
        concepts: an existing :class:`~kgmem.concepts.ConceptExtractor` (its spaCy pipeline is loaded
            once per process if you share it); ``mem.concepts`` is the one in use, for the query side.

    Use as a context manager, or call :meth:`close`.
    """

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        driver: neo4j.Driver | None = None,
        chroma: Any | None = None,
        embedder: Embedder | EmbeddingBackend | None = None,
        generator: TextGenerator | None = None,
        concepts: ConceptExtractor | None = None,
    ) -> None:
        # The composition root builds (or adopts) every resource and engine, each on first use:
        # constructing a client connects to nothing and loads nothing; its first call does.
        self.engines = Engines(
            settings, driver=driver, chroma=chroma, embedder=embedder, concepts=concepts, generator=generator
        )
        self.settings = self.engines.settings
        self.namespace = self.settings.namespace

    # -- what the client runs on: the root's, built on first use ------------------------
    @property
    def driver(self) -> neo4j.Driver:
        """The Neo4j driver."""
        return self.engines.driver

    @property
    def graph(self) -> GraphStore:
        """The graph store (its first use is the first connect: the schema step)."""
        return self.engines.graph

    @property
    def vectors(self) -> VectorStore:
        """The Chroma vector store."""
        return self.engines.vectors

    @property
    def embedder(self) -> Embedder:
        """The embedder (the model loads on the first embedding)."""
        return self.engines.embedder

    @property
    def concepts(self) -> ConceptExtractor:
        """The concept extractor in use (for the query side)."""
        return self.engines.concepts

    @property
    def learning(self) -> LearningEngine:
        """The error→fix engine (kgmem/learning)."""
        return self.engines.learning

    @property
    def retrieval(self) -> Retrieval:
        """Graph RAG retrieval (kgmem/retrieval)."""
        return self.engines.retrieval

    @property
    def turns(self) -> TurnStore:
        """The turn store (kgmem/conversation)."""
        return self.engines.turns

    @property
    def analysis(self) -> AnalysisService:
        """Conversation analysis (kgmem/analysis)."""
        return self.engines.analysis

    @property
    def conversation(self) -> TurnRecorder:
        """The turn recorder (write-behind, spool) in front of the turn store."""
        return self.engines.conversation

    @property
    def callgraph(self) -> CallGraph:
        """Call-graph healing (kgmem/callgraph)."""
        return self.engines.callgraph

    def _ns(self, ns: str | None) -> str:
        """The namespace of a call: ``ns`` if given (an empty one is an error, not the default)."""
        return resolve_namespace(ns, self.namespace)

    # -- learning (kgmem/learning; docs/learning.md) -----------------------------------
    @keyword_only
    def tool_result(
        self,
        tool: str,
        params: dict[str, Any] | None = None,
        *,
        result: Any = None,
        error: str | BaseException | None = None,
        session: str | None = None,
        ns: str | None = None,
    ) -> Observation:
        """Report the outcome of a tool call; returns an :class:`~kgmem.learning.Observation` for
        every call (``obs.ok`` tells success from failure).

        On error, kgmem remembers the (normalised) error; the observation holds its id,
        category, pattern and the known fixes ranked by confidence (direct fixes first, fixes
        of similar errors attenuated), each flagged ``auto_apply`` at confidence ≥
        ``learning.auto_apply_threshold``. On success (``ok=True``, no fixes): after a failure
        of the same tool in the same session, the parameter change is recorded as the fix of
        that recovery (``obs.id`` is the recovered error, ``obs.fix_id`` the fix; a later
        :meth:`resolve` of that recovery names this fix instead of adding a second one); the
        next success after a recovery confirms its fix held (+boost, once). Never raises into
        the tool loop when Neo4j is down (the event is spooled) unless ``learning.strict`` is set.

        A repeat of an error already known (in the graph, with its vector) is *deferred*: the event is
        fsync'ed to the spool before this returns and its count is written within
        ``learning.defer_flush_ms`` (200 ms), before this client's next write, and at :meth:`flush` /
        :meth:`close` — other processes see the count that much later (docs/learning.md).
        """
        return self.learning.tool_result(self._ns(ns), tool, params, error=error, session=session)

    @keyword_only
    def tool_results(
        self, events: Iterable[ToolEvent | dict[str, Any]], *, ns: str | None = None, index: bool = True
    ) -> BatchResult:
        """Record many tool outcomes (``ToolEvent`` or dicts with tool/params/error/session/ts) in one
        transaction, in order — for bulk loads and backfills. ``index=False`` skips embedding new
        patterns now (they are indexed on their next occurrence)."""
        return self.learning.tool_results(self._ns(ns), events, index=index)

    @keyword_only
    def resolve(
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
        """Record that ``fix`` resolved ``error`` (an Observation, error id, or message + ``tool``),
        or failed to (``success=False``); confidence moves by +boost / −penalty and successes
        propagate to similar errors carrying the same fix.

        One recovery is one Fix: when ``error`` failed in a session (the Observation's, or
        ``session``) and a later success there was already recorded as the observed fix, this
        confirms that recovery and gives its fix your description — no second Fix, no second
        success. Called while the failure is still open, it names the fix the next success
        of the tool in that session will complete (counted once).

        A judgement counts once: on an Observation (one recorded failure, ``Observation.occurrence``)
        or with ``occurrence`` given, a repeat of the same fix — a retried call, from any process —
        is a no-op that returns the current :class:`FixOutcome` with ``counted=False``; the first
        outcome stands, a repeat with the opposite ``success`` changes nothing either. An error id
        or message without ``occurrence`` counts each time."""
        return self.learning.resolve(
            self._ns(ns), error, fix, success, tool=tool, session=session, occurrence=occurrence
        )

    @keyword_only
    def fix_applied(
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
        """Report the outcome of applying a suggested fix (e.g. an ``auto_apply`` one).

        Counted once per (error occurrence, fix), like :meth:`resolve`: a repeat on the same
        Observation (or ``occurrence``) returns the current :class:`FixOutcome`, ``counted=False``."""
        return self.learning.resolve(
            self._ns(ns), error, fix, success, tool=tool, session=session, occurrence=occurrence
        )

    def correction(
        self, text: str, *, error: Observation | str | None = None, tool: str | None = None, ns: str | None = None
    ) -> FixOutcome | None:
        """Store a user correction: manual, high-confidence knowledge (type ``correction``); if
        ``error`` is given, also a user fix of that error, which outranks automatic fixes."""
        ns = self._ns(ns)
        self.add_knowledge(text, type="correction", ns=ns)
        if error is None:
            return None
        # The user's fix stands beside the agent's recovery (it does not rename it).
        return self.learning.resolve(ns, error, text, True, tool=tool, source="user", recovery=False)

    @keyword_only
    def index_errors(self, *, ns: str | None = None) -> int:
        """Embed and link (SIMILAR_TO) the error patterns a ``tool_results(index=False)`` backfill left
        without vectors; returns how many were indexed."""
        return self.learning.index_pending(self._ns(ns))

    def replay_spool(self) -> int:
        """Replay learning events spooled while Neo4j was unreachable (exactly once); returns the count."""
        return self.learning.replay_spool()

    def flush(self) -> None:
        """Write what this client holds back now: deferred error occurrences (``learning.defer_flush_ms``),
        queued turns (``analysis.write_behind``) and the query log (``retrieval.query_log_delay_ms``).
        Afterwards the graph holds every event this client was given (or, if Neo4j is unreachable, the
        spool does: replayed exactly once later)."""
        self.learning.flush()
        self.conversation.flush()
        self.retrieval.flush()

    # -- retrieval (kgmem/retrieval; docs/retrieval.md) ---------------------------------
    @keyword_only
    def search(
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
        """Find what kgmem knows about ``query`` (Graph RAG: vector + keyword legs, graph expansion,
        fusion, quality ranking). Current by default: knowledge a newer statement superseded is left out.

        Args:
            query: free text.
            k: number of hits (1–1000).
            ns: namespace (default: the client's).
            session: restrict conversation turns to this session (knowledge/errors/fixes stay namespace-wide).
            kinds: subset of ``message, knowledge, error, fix, entity`` (default: all).
            preset: ``fast``, ``balanced`` (default) or ``deep`` (see :mod:`kgmem.retrieval.config`).
            explain: also time every stage (embed, each leg, fusion, expansion, ranking) into
                ``result.timings_ms`` (see :mod:`kgmem.retrieval.timing`).
            as_of: a ``datetime`` (naive = UTC) or ISO-8601 string: answer with what was valid then
                (knowledge with ``valid_from <= as_of < valid_until``, turns said by then).

        Returns:
            a :class:`~kgmem.retrieval.SearchResult` (iterable over its hits); pass its ``query_id``
            to :meth:`feedback`.
        """
        self.conversation.flush()  # write-behind: this client's own turns are searchable at once
        self.learning.flush(settle=False)  # ... and its deferred error occurrences counted
        return self.retrieval.search(query, self._ns(ns), k, session, kinds, preset, explain=explain, as_of=as_of)

    @keyword_only
    def context(self, query: str, max_tokens: int = 1000, *, ns: str | None = None, **search_kwargs: Any) -> Context:
        """The hits for ``query`` as a prompt block with numbered citations within ``max_tokens``,
        plus an overall confidence (``.text``, ``.citations``, ``.confidence``, ``.query_id``).
        ``search_kwargs``: ``k``, ``session``, ``kinds``, ``preset`` and ``as_of`` of :meth:`search`."""
        if "preset" in search_kwargs:
            search_kwargs["preset_name"] = search_kwargs.pop("preset")
        self.conversation.flush()
        self.learning.flush(settle=False)
        return self.retrieval.context(query, self._ns(ns), max_tokens, **search_kwargs)

    @keyword_only
    def feedback(
        self,
        query_id: str,
        *,
        used: Sequence[Any] | str = (),
        outcome: str | float = "included",
        response: str | None = None,
        ns: str | None = None,
    ) -> Judgement:
        """Tell kgmem which hits of ``query_id`` were used and how it went.

        ``outcome``: ``included`` (+0.2), ``referenced`` (+0.5), ``success`` (+0.8), ``positive`` (+1.0),
        ``negative`` (−1.0) or a number in [−1, 1]; hits of the query not in ``used`` get −0.1.
        ``response``: the answer built on a :meth:`context`; its ``[n]`` citations are the hits credited.
        The signals update the usage posteriors that rank later searches — of the query's session only
        until :meth:`end_session` merges them (feedback on a query of an ended session goes to the
        global posteriors at once). ``query_id`` may come from another process.

        A query id takes one judgement: retrying the call (after a timeout, from another process,
        concurrently) is safe — the repeat changes nothing and returns ``counted=False``.
        ``ns``: when given, the query must have run in that namespace (another namespace's query id
        raises :class:`~kgmem.retrieval.UnknownQuery`, as an unknown one does); by default any.
        """
        return self.retrieval.feedback(query_id, used, outcome, response, None if ns is None else self._ns(ns))

    @keyword_only
    def ingest(
        self,
        source: str | Path | Iterable[Any],
        *,
        ns: str | None = None,
        batch_size: int = 256,
        progress: bool = False,
        analyze: bool = False,
    ) -> IngestReport:
        """Bulk-load a JSONL file (or an iterable of event dicts): turns, tool results, knowledge,
        session ends. Batched and idempotent; a malformed event is reported by line number in
        ``report.errors`` while every valid one lands. See :mod:`kgmem.ingest.events` for the format."""
        from kgmem.ingest import ingest

        return ingest(self, source, self._ns(ns), batch_size=batch_size, progress=progress, analyze=analyze)

    # -- conversation and its analysis (kgmem/conversation, kgmem/analysis; docs/analysis.md) ----
    @keyword_only
    def turn(
        self,
        *,
        session: str,
        role: str,
        text: str,
        ref: str | None = None,
        ts: str | None = None,
        ns: str | None = None,
    ) -> str:
        """Store one conversation turn (a ``Message``) and return its id; analysis runs in the background.

        All arguments are keyword-only (``turn(session="s1", role="user", text="...")``): a
        positional ``turn(session, role, text)`` read too much like ``tool_result(tool, params)``.

        With ``[analysis] write_behind`` the turn is stored by a background thread in batches and
        this returns at once (the id is deterministic); see docs/analysis.md.
        """
        return self.conversation.turn(self._ns(ns), Turn(session, role, text, ref, ts))

    @keyword_only
    def end_session(self, session: str, *, ns: str | None = None) -> None:
        """Close ``session``: merge its retrieval feedback into the global posteriors, analyse what is
        pending and learn from the whole session (in the background)."""
        self.conversation.close_session(self._ns(ns), session)  # spooled when Neo4j is down
        self.retrieval.close_session(self._ns(ns), session)

    @keyword_only
    def add_knowledge(self, content: str, type: str = "fact", *, ns: str | None = None) -> dict[str, Any]:
        """Add a manual knowledge item (confidence 1.0, never decayed or penalised). It is judged against the
        stored items near it first (docs/judging.md): the same statement or a paraphrase promotes the stored
        item (returned), a contradiction supersedes the stored item (``valid_until``, ``SUPERSEDED_BY``)."""
        return self.analysis.curator.add(self._ns(ns), type, content)

    @keyword_only
    def learnings(
        self,
        *,
        type: str | None = None,
        min_confidence: float = 0.0,
        include_inactive: bool = False,
        ns: str | None = None,
    ) -> list[dict[str, Any]]:
        """Knowledge items, most trusted first."""
        self.learning.flush(settle=False)  # counts read here include this client's deferred occurrences
        return self.analysis.store.list(
            self._ns(ns), type=type, min_confidence=min_confidence, include_inactive=include_inactive
        )

    @keyword_only
    def history(self, id: str, *, ns: str | None = None) -> list[dict[str, Any]]:
        """How knowledge item ``id`` changed: it and the items it superseded or that superseded it,
        oldest statement first, each with ``valid_from``, ``valid_until`` and ``superseded_by``."""
        return list(self.analysis.store.history(self._ns(ns), id))

    def wait_for_analysis(self, timeout: float | None = None) -> bool:
        """Block until queued turns are stored and queued conversation analyses have run; False on timeout."""
        return self.conversation.wait(timeout) and self.analysis.wait(timeout)

    @keyword_only
    def analysis_stats(self, *, ns: str | None = None) -> dict[str, Any]:
        """Learning-event counters (inserted, merged, …, dropped), extractor in use, token usage, queue."""
        return self.analysis.stats(self._ns(ns))

    # -- call graph and reports (kgmem/callgraph, kgmem/reports) ---------------------
    @keyword_only
    def record_calls(self, calls: Sequence[tuple[str, str]], *, ns: str | None = None) -> int:
        """Record call edges found by static analysis: ``[(caller_qualname, callee_qualname), ...]``."""
        return self.callgraph.add_calls(self._ns(ns), calls)

    @keyword_only
    def observe_changes(
        self, functions_changed: Sequence[str], *, session: str | None = None, ns: str | None = None
    ) -> HealResult:
        """An observation changed these functions together: confirm call edges among them or add
        ``observation`` edges at 0.6 (functions must be known from :meth:`record_calls`)."""
        return self.callgraph.observe(self._ns(ns), functions_changed, session)

    @keyword_only
    def report(self, name: str, *, ns: str | None = None, **params: Any) -> list[dict[str, Any]]:
        """Run the Cypher report ``name`` (``cypher/reports/<name>.cypher``); rows as dicts."""
        from kgmem.reports import run_report

        self.learning.flush(settle=False)  # error counts in reports include this client's deferred occurrences
        return run_report(self.graph, name, {"ns": self._ns(ns), **params}).rows

    # -- forgetting (kgmem/forget; docs/forgetting.md) --------------------------------
    @keyword_only
    def forget(
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
        """Erase one scope from every store — exactly one of ``id`` (a turn, knowledge item, error
        pattern, fix or entity), ``session``, ``entity`` (a name) or ``everything=True`` (the namespace)
        — and return the counts erased per store; ``dry_run`` only counts (and lists the ids).

        What this client holds back is written first, so it is erased too; content-free tombstones
        keep events recorded before the forget from bringing it back. Raises
        :class:`~kgmem.forget.ForgetTargetNotFound` for an id, session or entity not in the namespace."""
        scope = parse_scope(id=id, session=session, entity=entity, everything=everything)
        ns = self._ns(ns)
        if not dry_run:
            self.flush()
            if self.learning.spool is not None:  # its open segment becomes a file the forget can rewrite
                self.learning.spool.rotate()
        op = self.engines.forgetter.forget_op(ns, scope, dry_run=dry_run, by=by or default_by("python"))
        return run(op, self.turns.io)

    # -- lifecycle --------------------------------------------------------------
    def close(self) -> None:
        """Store queued turns, flush pending conversation analysis, then release the rest (only what
        was built: a client that made no call closes nothing but itself)."""
        self.engines.close()

    def __enter__(self) -> KGMem:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

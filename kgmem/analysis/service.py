"""``AnalysisService``: wires store, analyzer, session learner and buffer for the client.

``KGMem`` holds one and subscribes it to the conversation's turn path
(:class:`~kgmem.conversation.recorder.TurnRecorder`: :meth:`observe_turn` for each stored
turn, :meth:`end_session` for each ended session) — analysis reads conversation, it does
not write turns. Which extractor runs is decided here: the Anthropic generator when
an API key is set (or a generator is injected), otherwise the offline extractor — and
kgmem says so, once, in the log and in :meth:`stats`.

One analysis job is one operation (:meth:`AnalysisService.job_op`, :mod:`kgmem.runner`): the
sync client runs it on the buffer's worker thread with :func:`~kgmem.runner.run`, the async one
on an asyncio task with its own runner (``arun``; the model call in a worker thread).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from kgmem.analysis.analyzer import ConversationAnalyzer
from kgmem.analysis.buffer import AnalysisBuffer, AsyncAnalysisBuffer, Job
from kgmem.analysis.curation import Curator
from kgmem.analysis.events import AnalysisStats, read_persisted
from kgmem.analysis.llm_judge import LLMJudge
from kgmem.analysis.offline_judge import OfflineJudge, Thresholds
from kgmem.analysis.session_learner import SessionLearner
from kgmem.analysis.store import KnowledgeStore
from kgmem.config import Settings
from kgmem.conversation import Turn, TurnStore
from kgmem.graph import GraphStore
from kgmem.llm import TextGenerator, default_generator
from kgmem.runner import LocalIO, Op, run
from kgmem.spool import SpoolReplayer
from kgmem.tombstones import NameTombstones, guard_job
from kgmem.vectors import Embedder, VectorStore

log = logging.getLogger(__name__)


class AnalysisService:
    """Conversation → knowledge, off the caller's thread.

    Args:
        settings: all settings (``analysis`` and ``anthropic`` sections are used).
        graph, vectors, embedder: the shared backends.
        turns: reads a session's messages back for the session learner (the conversation module).
        generator: the LLM; ``None`` → from settings (Anthropic with a key, else offline).
        replayer: the client's spool replayer: manual knowledge is spooled while Neo4j is unreachable
            (by the :class:`~kgmem.analysis.curation.Curator`).
        arun: the async client's runner (a coroutine function running an operation on its async
            stores): jobs then queue on an asyncio task (:class:`AsyncAnalysisBuffer`) and the
            backends passed here may be ``None``; by default a worker thread runs them on these.
        names: the client's :class:`~kgmem.tombstones.NameTombstones` (a job's forget check skips
            hashing its texts in a namespace that had no entity-name tombstone; None: always hashes).
    """

    def __init__(
        self,
        settings: Settings,
        graph: GraphStore | None,
        vectors: VectorStore | None,
        embedder: Embedder | None,
        turns: TurnStore,
        generator: TextGenerator | None = None,
        replayer: SpoolReplayer | None = None,
        *,
        arun: Callable[[Op[Any]], Awaitable[Any]] | None = None,
        names: NameTombstones | None = None,
    ) -> None:
        self.settings = settings
        self.names = names  # the client's memory of name tombstones (kgmem.tombstones.screened_op)
        generator = generator if generator is not None else default_generator(settings)
        self.counters = AnalysisStats(extractor=_name(generator))
        # Pairs no extraction call saw: the LLM adjudicates them in batches when there is one.
        offline = OfflineJudge(Thresholds(paraphrase_cosine=settings.analysis.dedup_cosine))
        self.judge = offline if generator is None else LLMJudge(generator, fallback=offline)
        # Knowledge MENTIONS concepts with the same extractor as the turns (kgmem.app.Engines.concepts).
        self.store = KnowledgeStore(
            graph,
            vectors,
            embedder,
            settings.analysis,
            self.counters,  # type: ignore[arg-type]
            concepts=getattr(turns, "concepts", None),
            judge=self.judge,
        )
        # While Neo4j is unreachable, manual knowledge goes to the client's spool (the one tool
        # results and turns use) and is replayed by it, in order, once it answers again.
        self.replayer = None if settings.learning.strict else replayer
        self.curator = Curator(self.store, self.counters, self.replayer)
        self.analyzer = ConversationAnalyzer(self.store, self.counters, generator)
        self.learner = SessionLearner(self.analyzer, settings.analysis)
        self.buffer: AnalysisBuffer | AsyncAnalysisBuffer
        if arun is None:
            self.buffer = AnalysisBuffer(
                lambda job: run(self.job_op(job), self.store.io), settings.analysis, self.counters
            )
        else:
            self.buffer = AsyncAnalysisBuffer(lambda job: arun(self.job_op(job)), settings.analysis, self.counters)
        self.turns = turns

    def observe_turn(self, ns: str, turn: Turn) -> None:
        """A stored turn (the conversation's ``on_stored``): queued for analysis when due."""
        self.observe(ns, turn.session, turn.role, turn.text, turn.ts)

    def observe(self, ns: str, session: str, role: str, text: str, ts: str | None = None) -> None:
        """A stored turn: count it; analysis is queued when the session's window is due. ``ts``: when
        it was said (what it teaches is valid from then)."""
        if self.settings.analysis.enabled:
            self.buffer.add(ns, session, role, text, ts)

    def end_session(self, ns: str, session: str) -> None:
        """An ended session (the conversation's ``on_session_end``): queue its partial window and
        its session-end learning."""
        if not self.settings.analysis.enabled:
            return
        self.buffer.flush(ns, session)
        self.buffer.submit(Job("session", ns, session))

    def wait(self, timeout: float | None = None) -> bool:
        """Block until queued analyses have run (the thread buffer)."""
        assert isinstance(self.buffer, AnalysisBuffer), "an asyncio service: await wait_async()"
        return self.buffer.wait_idle(timeout)

    async def wait_async(self, timeout: float | None = None) -> bool:
        """Wait until queued analyses have run (the asyncio buffer)."""
        assert isinstance(self.buffer, AsyncAnalysisBuffer), "a thread service: call wait()"
        return await self.buffer.wait_idle(timeout)

    def stats(self, ns: str | None = None) -> dict[str, Any]:
        """This client's counters for ``ns``, the extractor in use, token usage and the queue."""
        out = self.counters.snapshot(ns)
        out.update(self.buffer.pending())
        generator = self.analyzer.generator
        usage = getattr(generator, "usage", None)
        if usage is not None:
            out["usage"] = usage.as_dict()
        if isinstance(self.judge, LLMJudge):
            out["judge"] = self.judge.counters.as_dict()
        return out

    def close(self) -> None:
        """Flush pending windows, finish the queue, save the counters (close the turn path first:
        write-behind still feeds this)."""
        assert isinstance(self.buffer, AnalysisBuffer), "an asyncio service: await aclose()"
        self.buffer.close()
        self.counters.persist(self.settings.home)
        self.store.io.close()  # the knowledge store's neighbour queries ran on its small thread pool

    async def aclose(self) -> None:
        """:meth:`close` for the asyncio buffer (the counters file is written in a worker thread)."""
        assert isinstance(self.buffer, AsyncAnalysisBuffer), "a thread service: call close()"
        await self.buffer.close()
        await asyncio.to_thread(self.counters.persist, self.settings.home)

    def job_op(self, job: Job) -> Op[None]:
        """Run one analysis job (a window, or an ended session's learning), then save the counters."""
        work = self.analyzer.analyze_op(job.ns, job.session, job.messages) if job.kind == "window" else self._learn(job)
        # A forget of the session (or namespace, or an entity the window names) after the job's turns
        # arrived voids its knowledge write.
        texts = [m.get("text") for m in job.messages]
        yield from guard_job(work, job.ns, job.session, job.since_ms, texts, self.names)
        yield LocalIO(self.counters.persist, (self.settings.home,))

    def _learn(self, job: Job) -> Op[None]:
        messages = yield from self.turns.messages_op(job.ns, job.session)
        yield from self.learner.learn_op(job.ns, job.session, messages)

    def drop_windows(self, ns: str, session: str | None = None, mentions: str | None = None) -> int:
        """Discard queued-but-unanalysed turns of ``session`` (all of ``ns`` when None), or with
        ``mentions`` (lower-cased) the windows of any session holding it: a forget."""
        return self.buffer.windows.drop(ns, session, mentions)


def persisted_stats(settings: Settings, ns: str | None = None) -> dict[str, Any]:
    """Counters saved by kgmem clients under ``$KGMEM_HOME/stats`` (for ``kgmem learning status``)."""
    return read_persisted(settings.home, ns)


def _name(generator: TextGenerator | None) -> str:
    return "offline" if generator is None else getattr(generator, "name", type(generator).__name__)

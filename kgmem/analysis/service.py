"""``AnalysisService``: wires store, analyzer, session learner and buffer for the client.

``KGMem`` holds one. Which extractor runs is decided here: the Anthropic generator when
an API key is set (or a generator is injected), otherwise the offline extractor — and
kgmem says so, once, in the log and in :meth:`stats`.
"""

from __future__ import annotations

import logging
from dataclasses import asdict
from typing import Any

from kgmem.analysis.analyzer import ConversationAnalyzer
from kgmem.analysis.buffer import AnalysisBuffer, Job
from kgmem.analysis.curation import Curator
from kgmem.analysis.events import AnalysisStats, read_persisted
from kgmem.analysis.generator import AnthropicGenerator, TextGenerator
from kgmem.analysis.session_learner import SessionLearner
from kgmem.analysis.store import KnowledgeStore
from kgmem.analysis.turn_writer import TurnWriter
from kgmem.config import Settings
from kgmem.conversation import Turn, TurnStore, message_id
from kgmem.conversation.store import validate_turn
from kgmem.errors import GraphUnavailable
from kgmem.graph import GraphStore
from kgmem.graph.store import UNREACHABLE
from kgmem.learning.spool import KNOWLEDGE, SESSION_END, TURN, SpoolReplayer
from kgmem.vectors import Embedder, VectorStore

log = logging.getLogger(__name__)


def default_generator(settings: Settings) -> TextGenerator | None:
    """The Anthropic generator when a key is configured, else ``None`` (offline extraction)."""
    if settings.anthropic.api_key is None:
        log.info("no Anthropic API key (ANTHROPIC_API_KEY): conversation analysis uses the offline "
                 "rule-based extractor (lower quality; items marked source=offline)")
        return None
    return AnthropicGenerator(settings.anthropic)


class AnalysisService:
    """Conversation → knowledge, off the caller's thread.

    Args:
        settings: all settings (``analysis`` and ``anthropic`` sections are used).
        graph, vectors, embedder: the shared backends.
        turns: stores turns and reads a session's messages back (the conversation module).
        generator: the LLM; ``None`` → from settings (Anthropic with a key, else offline).
    """

    def __init__(
        self,
        settings: Settings,
        graph: GraphStore,
        vectors: VectorStore,
        embedder: Embedder,
        turns: TurnStore,
        generator: TextGenerator | None = None,
        replayer: SpoolReplayer | None = None,
    ) -> None:
        self.settings = settings
        generator = generator if generator is not None else default_generator(settings)
        self.counters = AnalysisStats(extractor=_name(generator))
        self.store = KnowledgeStore(graph, vectors, embedder, settings.analysis, self.counters)
        # While Neo4j is unreachable, turns and manual knowledge go to the client's spool
        # (the one tool results use) and are replayed by it, in order, once it answers again.
        self.replayer = None if settings.learning.strict else replayer
        if self.replayer is not None:
            self.replayer.register(TURN, self._replay_turns, transactional=False)
            self.replayer.register(KNOWLEDGE, self._replay_knowledge, transactional=False)
            self.replayer.register(SESSION_END, self._replay_session_ends, transactional=False)
        self.curator = Curator(self.store, self.counters, defer=self._spool_knowledge if self.replayer else None)
        self.analyzer = ConversationAnalyzer(self.store, self.counters, generator)
        self.learner = SessionLearner(self.analyzer, settings.analysis)
        self.buffer = AnalysisBuffer(self._handle, settings.analysis, self.counters)
        self.turns = turns
        self.writer: TurnWriter | None = None
        if settings.analysis.write_behind:
            self.writer = TurnWriter(turns.record, self._stored, self.counters,
                                     queue_size=settings.analysis.write_behind_queue,
                                     batch_size=settings.analysis.write_behind_batch,
                                     on_unreachable=self._spool_turns if self.replayer else None)

    def turn(self, ns: str, turn: Turn) -> str:
        """Store ``turn`` (now, or queued with write-behind) and feed analysis; returns the message id.

        While Neo4j is unreachable the turn is spooled and replayed later (same id)."""
        clean = validate_turn(turn)  # bad input fails here, on the caller's thread, naming the field
        if self.writer is not None:
            self.writer.submit(ns, clean)
            return message_id(ns, clean)
        try:
            if self.replayer is not None:
                self.replayer.replay_if_due()  # older spooled writes first: the session stays in order
            mid = self.turns.record(ns, [clean])[0]
        except UNREACHABLE as exc:
            if self.replayer is None:
                raise
            self._spool_turns(ns, [clean], exc)
            return message_id(ns, clean)
        self._stored(ns, clean)
        return mid

    # -- spool (Neo4j unreachable) -------------------------------------------------------
    def _spool_turns(self, ns: str, turns: list[Turn], exc: BaseException) -> None:
        self._spool(ns, TURN, [asdict(t) for t in turns], exc)

    def _spool_knowledge(self, ns: str, item: dict[str, Any], exc: BaseException) -> None:
        self._spool(ns, KNOWLEDGE, [item], exc)

    def _spool(self, ns: str, kind: str, events: list[dict[str, Any]], exc: BaseException) -> None:
        try:
            self.replayer.append(ns, events, kind)  # type: ignore[union-attr]
        except OSError as write_error:  # the disk failed too: the caller must know
            self.replayer.spool.bump(dropped=len(events))  # type: ignore[union-attr]
            raise GraphUnavailable(f"Neo4j unreachable ({exc}) and the spool write failed ({write_error}); "
                                   f"{len(events)} {kind}(s) not stored") from exc
        self.counters.count(ns, f"{kind}s_spooled", len(events))
        log.warning("Neo4j unreachable (%s); %d %s(s) spooled for replay", exc, len(events), kind)

    def _replay_turns(self, ns: str, events: list[dict[str, Any]], _cursor: Any) -> bool:
        turns = [Turn(e["session"], e["role"], e["text"], e.get("ref"), e.get("ts")) for e in events]
        self.turns.record(ns, turns)  # idempotent: deterministic message ids
        for t in turns:
            self._stored(ns, t)
        return True

    def _replay_session_ends(self, ns: str, events: list[dict[str, Any]], _cursor: Any) -> bool:
        for e in events:  # idempotent: ending a session twice only moves its ended_at
            self.turns.end_session(ns, e["session"])
            self.end_session(ns, e["session"])
        return True

    def _replay_knowledge(self, ns: str, events: list[dict[str, Any]], _cursor: Any) -> bool:
        for e in events:  # idempotent: a manual add of the same text promotes the same item
            self.curator.write_manual(ns, e["type"], e["content"])
        return True

    def _stored(self, ns: str, turn: Turn) -> None:
        self.observe(ns, turn.session, turn.role, turn.text)

    def observe(self, ns: str, session: str, role: str, text: str) -> None:
        """A stored turn: count it; analysis is queued when the session's window is due."""
        if self.settings.analysis.enabled:
            self.buffer.add(ns, session, role, text)

    def close_session(self, ns: str, session: str) -> None:
        """``KGMem.end_session``: store queued turns, mark the session ended, then :meth:`end_session`."""
        if self.writer is not None:  # its turns must be stored before the session learner reads them
            self.writer.flush(self.settings.analysis.flush_timeout_s)
        try:
            self.turns.end_session(ns, session)
        except UNREACHABLE as exc:
            if self.replayer is None:
                raise
            # After the session's spooled turns: the replay ends it (and learns from it) in order.
            self._spool(ns, SESSION_END, [{"session": session}], exc)
            return
        self.end_session(ns, session)

    def end_session(self, ns: str, session: str) -> None:
        """Queue the session's partial window and its session-end learning (analysis only)."""
        if not self.settings.analysis.enabled:
            return
        self.buffer.flush(ns, session)
        self.buffer.submit(Job("session", ns, session))

    def flush_turns(self) -> None:
        """Store every turn still queued by write-behind (no-op without it): read-your-writes for search."""
        if self.writer is not None:
            self.writer.flush(self.settings.analysis.flush_timeout_s)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until queued turns are stored and queued analyses have run."""
        if self.writer is not None and not self.writer.flush(timeout):
            return False
        return self.buffer.wait_idle(timeout)

    def stats(self, ns: str | None = None) -> dict[str, Any]:
        """This client's counters for ``ns``, the extractor in use, token usage and the queue."""
        out = self.counters.snapshot(ns)
        out.update(self.buffer.pending())
        generator = self.analyzer.generator
        usage = getattr(generator, "usage", None)
        if usage is not None:
            out["usage"] = usage.as_dict()
        return out

    def close(self) -> None:
        """Store queued turns, flush pending windows, finish the queue, save the counters."""
        if self.writer is not None:
            self.writer.close(self.settings.analysis.flush_timeout_s)
        self.buffer.close()
        self.counters.persist(self.settings.home)

    def _handle(self, job: Job) -> None:
        if job.kind == "window":
            self.analyzer.analyze(job.ns, job.session, job.messages)
        else:
            messages = self.turns.messages(job.ns, job.session)
            self.learner.learn(job.ns, job.session, messages)
        self.counters.persist(self.settings.home)


def persisted_stats(settings: Settings, ns: str | None = None) -> dict[str, Any]:
    """Counters saved by kgmem clients under ``$KGMEM_HOME/stats`` (for ``kgmem learning status``)."""
    return read_persisted(settings.home, ns)


def _name(generator: TextGenerator | None) -> str:
    return "offline" if generator is None else getattr(generator, "name", type(generator).__name__)

"""``ConversationAnalyzer``: a window of turns → extracted items → the knowledge store.

With a :class:`~kgmem.llm.TextGenerator` (an API key is set) the LLM does
the extraction; the prompt carries the namespace's active knowledge, low-confidence items
marked, so the same call flags contradictions. Its answer must be strict JSON
(:mod:`kgmem.analysis.schema`): invalid items are skipped and counted, malformed output or
a generator that gives up after its retries yields no items — never an exception.
Without a generator the deterministic :class:`~kgmem.analysis.offline.OfflineExtractor`
is used and its items are stored with ``source = "offline"``.

:meth:`ConversationAnalyzer.analyze_op` is an operation (:mod:`kgmem.runner`): the model call
and the offline extractor are :class:`~kgmem.runner.LocalIO` requests, so under ``AsyncKGMem``
they run in a worker thread, off the event loop.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kgmem.analysis.events import AnalysisStats
from kgmem.analysis.offline import OfflineExtractor
from kgmem.analysis.prompt import SYSTEM, build_prompt
from kgmem.analysis.schema import ExtractedItem, parse_items
from kgmem.analysis.store import KnowledgeStore, Outcome
from kgmem.errors import GeneratorError
from kgmem.llm import TextGenerator
from kgmem.runner import LocalIO, Op, SyncIO, synced
from kgmem.timestamps import normalise_ts

log = logging.getLogger(__name__)


@dataclass
class AnalysisResult:
    """What one analysis produced."""

    extractor: str
    outcomes: list[Outcome] = field(default_factory=list)
    invalid: int = 0
    malformed: bool = False
    error: str | None = None

    def count(self, action: str) -> int:
        return sum(1 for o in self.outcomes if o.action == action)


def said_at(messages: Sequence[Mapping[str, Any]]) -> str | None:
    """When a window's statements were made: its newest turn's ``ts`` (canonical UTC), None when no
    turn carries one (the store then takes the time it stores them). One time per window: the
    extractor's items do not name their turn, and a window spans minutes, not the months apart
    that make one fact replace another."""
    stamps = [normalise_ts(m["ts"], "turn.ts") for m in messages if m.get("ts")]
    return max(stamps) if stamps else None


class ConversationAnalyzer:
    """Extracts knowledge from turns with the LLM (or offline) and hands it to the store."""

    def __init__(
        self,
        store: KnowledgeStore,
        stats: AnalysisStats,
        generator: TextGenerator | None = None,
        offline: OfflineExtractor | None = None,
    ) -> None:
        self.store = store
        self.stats = stats
        self.generator = generator
        self.offline = offline or OfflineExtractor()

    @property
    def extractor(self) -> str:
        """``anthropic:<model>`` or ``offline`` — which extractor runs."""
        if self.generator is None:
            return self.offline.name
        return getattr(self.generator, "name", type(self.generator).__name__)

    @property
    def io(self) -> SyncIO:
        """The store's sync backends, which :meth:`analyze` runs on."""
        return self.store.io

    def analyze_op(
        self,
        ns: str,
        session: str,
        messages: Sequence[Mapping[str, Any]],
        *,
        session_end: bool = False,
        min_confidence: float | None = None,
    ) -> Op[AnalysisResult]:
        """Analyse ``messages`` (dicts with role and text) of ``session``; store what is worth keeping."""
        result = AnalysisResult(extractor=self.extractor)
        if not messages:
            return result
        # The active items, most trusted first: low-confidence ones too, so the model does not resurrect them.
        existing = yield from self.store.list_op(ns, limit=self.store.settings.prompt_knowledge_limit)
        if self.generator is not None:
            items = yield from self._llm_items(ns, session, messages, existing, session_end, result)
            source = "llm"
        else:
            items = yield LocalIO(self.offline.extract, (messages, existing))  # CPU: off the event loop
            source = "offline"
        if min_confidence is not None:
            for item in items:
                if item.confidence < min_confidence:
                    self.stats.emit(
                        "skipped", ns, session=session, reason="below_session_threshold", content=item.content[:100]
                    )
            items = [i for i in items if i.confidence >= min_confidence]
        if items:
            result.outcomes = yield from self.store.apply_op(ns, session, items, source, said_at=said_at(messages))
        self.stats.count(ns, "analyses")
        log.debug(
            "analysed %d turns of %s/%s with %s: %s",
            len(messages),
            ns,
            session,
            result.extractor,
            [o.action for o in result.outcomes],
        )
        return result

    analyze = synced(analyze_op)

    def _llm_items(
        self,
        ns: str,
        session: str,
        messages: Sequence[Mapping[str, Any]],
        existing: list[dict[str, Any]],
        session_end: bool,
        result: AnalysisResult,
    ) -> Op[list[ExtractedItem]]:
        assert self.generator is not None
        prompt = build_prompt(
            messages, existing, low_mark=self.store.settings.low_confidence_mark, session_end=session_end
        )
        try:
            # The SDK call blocks (HTTP, retries): a LocalIO request, in a worker thread under asyncio.
            text = yield LocalIO(functools.partial(self.generator.generate, system=SYSTEM), (prompt,))
        except GeneratorError as exc:
            result.error = str(exc)
            self.stats.count(ns, "analysis_failed")
            log.warning("analysis of %s/%s skipped: %s", ns, session, exc)
            return []
        parsed = parse_items(text)
        result.invalid, result.malformed = parsed.invalid, parsed.malformed
        if parsed.malformed:
            self.stats.count(ns, "malformed_outputs")
            self.stats.emit(
                "skipped",
                ns,
                level=logging.WARNING,
                session=session,
                reason="malformed_output",
                detail=parsed.errors[0],
                output=text[:200],
            )
        for error in parsed.errors if not parsed.malformed else []:
            self.stats.count(ns, "invalid_items")
            self.stats.emit("skipped", ns, level=logging.WARNING, session=session, reason="invalid_item", detail=error)
        return parsed.items

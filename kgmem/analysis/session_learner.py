"""``SessionLearner``: at session end, one more analysis over the whole (sampled) session.

Sessions under ``session_min_messages`` (4) are skipped; above ``session_sample_above`` (20)
messages only a sample goes to the extractor — the first 3 (how it started), every 5th
(how it went), the last 5 (how it ended) — and only items the extractor is highly confident
about (``session_min_confidence``, 0.7) are kept.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from kgmem.analysis.analyzer import AnalysisResult, ConversationAnalyzer
from kgmem.config import AnalysisSettings
from kgmem.runner import Op

log = logging.getLogger(__name__)

FIRST = 3
EVERY = 5
LAST = 5


def sample_indices(
    n: int, sample_above: int = 20, first: int = FIRST, every: int = EVERY, last: int = LAST
) -> list[int]:
    """Indices of the messages to analyse out of ``n``: all of them up to ``sample_above``;
    beyond, the first ``first``, every ``every``-th message (1-based: indices 4, 9, 14, …) and
    the last ``last``, sorted and without repeats."""
    if n <= sample_above:
        return list(range(n))
    picked = set(range(min(first, n)))
    picked.update(range(every - 1, n, every))
    picked.update(range(max(0, n - last), n))
    return sorted(picked)


class SessionLearner:
    """Runs the analyzer once over a finished session."""

    def __init__(self, analyzer: ConversationAnalyzer, settings: AnalysisSettings) -> None:
        self.analyzer = analyzer
        self.settings = settings

    def learn_op(self, ns: str, session: str, messages: Sequence[Mapping[str, Any]]) -> Op[AnalysisResult | None]:
        """Analyse the ended ``session`` (its messages in order); ``None`` when it is too short."""
        if len(messages) < self.settings.session_min_messages:
            self.analyzer.stats.emit("skipped", ns, session=session, reason="short_session", messages=len(messages))
            return None
        picked = [messages[i] for i in sample_indices(len(messages), self.settings.session_sample_above)]
        log.debug("session %s/%s: learning from %d of %d messages", ns, session, len(picked), len(messages))
        return (
            yield from self.analyzer.analyze_op(
                ns, session, picked, session_end=True, min_confidence=self.settings.session_min_confidence
            )
        )

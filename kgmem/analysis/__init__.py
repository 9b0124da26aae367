"""Conversation analysis: turns → LLM (or offline) extraction → deduplicated, evolving knowledge.

See docs/analysis.md. The client-facing pieces:
:class:`AnalysisService` (what ``KGMem`` holds), :class:`TextGenerator` /
:class:`AnthropicGenerator`, :class:`OfflineExtractor`, and :func:`stats` — the saved
analysis counters of a namespace, for ``kgmem learning status``.
"""

from kgmem.analysis.analyzer import AnalysisResult, ConversationAnalyzer
from kgmem.analysis.buffer import AnalysisBuffer, Job
from kgmem.analysis.events import EVENTS, AnalysisStats
from kgmem.analysis.offline import OfflineExtractor
from kgmem.analysis.schema import ExtractedItem, parse_items
from kgmem.analysis.service import AnalysisService, persisted_stats
from kgmem.analysis.session_learner import SessionLearner, sample_indices
from kgmem.analysis.store import KnowledgeStore, Outcome
from kgmem.llm import AnthropicGenerator, TextGenerator, Usage

stats = persisted_stats

__all__ = [
    "EVENTS",
    "AnalysisBuffer",
    "AnalysisResult",
    "AnalysisService",
    "AnalysisStats",
    "AnthropicGenerator",
    "ConversationAnalyzer",
    "ExtractedItem",
    "Job",
    "KnowledgeStore",
    "OfflineExtractor",
    "Outcome",
    "SessionLearner",
    "TextGenerator",
    "Usage",
    "parse_items",
    "persisted_stats",
    "sample_indices",
    "stats",
]

"""Error→fix learning engine (docs/learning.md).

Public pieces: :class:`LearningEngine` (what ``KGMem`` holds), the values it returns
(:class:`Observation`, :class:`FixSuggestion`, :class:`FailedFix`, :class:`FixOutcome`, :class:`BatchResult`),
:class:`ToolEvent` for the batch API, and the pure helpers :func:`normalize_error` and
:func:`categorize`.
"""

from kgmem.learning.categories import CATEGORIES, categorize
from kgmem.learning.engine import LearningEngine
from kgmem.learning.models import BatchResult, FailedFix, FixOutcome, FixSuggestion, Observation, ToolEvent
from kgmem.learning.normalize import normalize_error, signature

__all__ = [
    "CATEGORIES",
    "BatchResult",
    "FailedFix",
    "FixOutcome",
    "FixSuggestion",
    "LearningEngine",
    "Observation",
    "ToolEvent",
    "categorize",
    "normalize_error",
    "signature",
]

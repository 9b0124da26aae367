"""An LLM judges the borderline matches of a new error (when an LLM is configured).

The matching model (:mod:`kgmem.learning.matching`) decides from text signals: on data it was
not tuned on it misses paraphrases of one error (``Unable to locate credentials`` vs a
``NoCredentialsError`` traceback) and links near-twins that read alike (docs/learning.md).
The misses sit just below the threshold; the near-twins it links mostly score well above it.
This is how Graphiti resolves duplicate entities and Mem0 decides ADD/UPDATE: candidates from
search, an LLM's verdict on them.

Which pairs are asked about is the ``scope``: ``"fuzzy"`` (default) every candidate scoring above
``threshold - band`` that is not the same template (score 1.0: the same pattern by definition);
``"close"`` only those within ``band`` of the threshold, fewer calls but blind to the near-twins.
All candidates of one new error go in one call; pairs the identity guard or a near-twin rule
rejected are never asked (the LLM cannot overrule a different errno or exception class). The
answer names candidates by the numbers the prompt gave them: nothing of the LLM's text reaches
Cypher. When the call fails or the answer cannot be read, the model's own decision stands.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import get_args

from kgmem.config import AdjudicationScope as Scope
from kgmem.config import LearningSettings
from kgmem.errors import GeneratorError
from kgmem.llm import TextGenerator

__all__ = [
    "SCOPES",
    "Borderline",
    "MatchAdjudicator",
    "Scope",
    "adjudicator_for",
    "asks_about",
    "in_band",
    "parse_answer",
]

log = logging.getLogger(__name__)

_SYSTEM = (
    "You decide whether error messages reported by software tools are the same error, i.e. the fix "
    "that resolved one would resolve the other. Wrappers (log prefixes, timestamps, host or container "
    "names, JSON envelopes, exception class prefixes, paths, ids, versions, user names) do not make "
    "another error. A different cause, resource, status, or a message that needs another fix does. "
    "Answer with JSON only."
)
_PROMPT = """A new error:
<new>
{new}
</new>

Known errors:
{known}

Which known errors are the same error as the new one (same cause, same fix)?
Answer with one JSON object: {{"same": [numbers of the known errors that are the same]}} — [] when none is."""
_MAX_CHARS = 1200  # per message in the prompt: the core lines, not a whole log
# Candidates per call (the highest scores for "fuzzy", the nearest the threshold for "close"); the rest
# keep the model's decision.
# similar_neighbours (≤ 100) × three candidate legs would otherwise make one prompt unbounded.
MAX_CANDIDATES = 8
SCOPES: tuple[str, ...] = get_args(Scope)
_JSON_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


@dataclass(frozen=True)
class Borderline:
    """One candidate of a new error that the LLM is asked about (:func:`asks_about`)."""

    candidate: str  # the known pattern's id
    text: str  # the known pattern's core template
    score: float


def in_band(score: float | None, threshold: float, band: float) -> bool:
    """Whether a model score is a close call: within ``band`` of ``threshold`` (a vetoed pair, None, never is)."""
    return score is not None and band > 0 and abs(score - threshold) < band


def asks_about(score: float | None, threshold: float, band: float, scope: Scope) -> bool:
    """Whether the LLM is asked about a pair with this match score: ``"close"`` within ``band`` of
    ``threshold``; ``"fuzzy"`` anything above ``threshold - band`` short of the same template (1.0).
    A vetoed pair (None) never is."""
    if scope == "close":
        return in_band(score, threshold, band)
    return score is not None and band > 0 and threshold - band < score < 1.0


class MatchAdjudicator:
    """Asks a :class:`~kgmem.llm.TextGenerator` which candidates are the same error.

    Args:
        generator: the LLM (the client's Anthropic generator).
        band: how far below the threshold a score is still asked about (> 0); with scope ``"close"``
            also how far above.
        scope: which pairs are asked about (:func:`asks_about`).
    """

    def __init__(self, generator: TextGenerator, band: float, scope: Scope = "fuzzy") -> None:
        if not 0 < band <= 1:
            raise ValueError(f"learning.adjudicate_band: {band!r} is not in (0, 1]")
        if scope not in SCOPES:
            raise ValueError(f"learning.adjudicate_scope: {scope!r} is not one of {SCOPES}")
        self.generator = generator
        self.band = band
        self.scope = scope
        self.calls = 0
        self.failures = 0

    def asks_about(self, score: float | None, threshold: float) -> bool:
        """Whether a pair with this match score goes to the LLM (:func:`asks_about` with this band and scope)."""
        return asks_about(score, threshold, self.band, self.scope)

    def decide(self, new: str, candidates: Sequence[Borderline], threshold: float) -> dict[str, bool] | None:
        """{candidate id: same error?} for the candidates asked about, or None when the LLM gave no
        usable answer. At most :data:`MAX_CANDIDATES`: with scope ``"fuzzy"`` the highest scores (the
        links the model would make), with ``"close"`` the nearest ``threshold``."""
        if not candidates:
            return {}
        if len(candidates) > MAX_CANDIDATES:
            order = (lambda c: -c.score) if self.scope == "fuzzy" else (lambda c: abs(c.score - threshold))
            candidates = sorted(candidates, key=order)[:MAX_CANDIDATES]
        known = "\n".join(f'<known number="{n}">\n{c.text[:_MAX_CHARS]}\n</known>' for n, c in enumerate(candidates, 1))
        self.calls += 1
        try:
            answer = self.generator.generate(_PROMPT.format(new=new[:_MAX_CHARS], known=known), system=_SYSTEM)
        except GeneratorError as exc:
            self.failures += 1
            log.warning("match adjudication failed, the matching model decides: %s", exc)
            return None
        same = parse_answer(answer, len(candidates))
        if same is None:
            self.failures += 1
            log.warning("match adjudication: unreadable answer %r, the matching model decides", answer[:200])
            return None
        return {c.candidate: n in same for n, c in enumerate(candidates, 1)}

    def decide_all(
        self, asks: Mapping[str, tuple[str, Sequence[Borderline]]], threshold: float
    ) -> dict[tuple[str, str], bool]:
        """One :meth:`decide` per new error: {(new id, candidate id): same?} for the answered ones."""
        out: dict[tuple[str, str], bool] = {}
        for own, (text, candidates) in asks.items():
            verdict = self.decide(text, candidates, threshold)
            for cid, same in (verdict or {}).items():
                out[(own, cid)] = same
        return out


def adjudicator_for(generator: TextGenerator | None, learning: LearningSettings) -> MatchAdjudicator | None:
    """A client's adjudicator from its ``[learning]`` settings: None without an LLM or with
    ``adjudicate_band = 0``."""
    if generator is None or learning.adjudicate_band <= 0:
        return None
    return MatchAdjudicator(generator, learning.adjudicate_band, learning.adjudicate_scope)


def parse_answer(answer: str, count: int) -> frozenset[int] | None:
    """The candidate numbers of ``{"same": [...]}`` in ``answer`` (1..count), or None when it is not that."""
    found = _JSON_OBJECT.search(answer or "")
    if not found:
        return None
    try:
        data = json.loads(found.group(0))
    except json.JSONDecodeError:
        return None
    same = data.get("same") if isinstance(data, dict) else None
    if not isinstance(same, list) or not all(isinstance(n, int) and not isinstance(n, bool) for n in same):
        return None
    if any(n < 1 or n > count for n in same):
        return None
    return frozenset(same)

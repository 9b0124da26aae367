"""Render hits as a prompt block with numbered citations, within a token budget."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from kgmem.retrieval.types import SearchHit, SearchResult

CHARS_PER_TOKEN = 4  # rough English average; good enough for a budget, no tokenizer needed
#: The smallest ``max_tokens`` a context block accepts (a header and one truncated citation).
MIN_TOKENS = 20


@dataclass(frozen=True)
class Context:
    """The prompt block, the hits it cites (citation ``[i]`` is ``citations[i-1]``) and a confidence in [0, 1]."""

    text: str
    citations: list[SearchHit]
    confidence: float
    query_id: str
    omitted: list[SearchHit] = field(default_factory=list)

    def __str__(self) -> str:
        return self.text


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def hit_line(i: int, hit: SearchHit) -> str:
    """``[i] (kind · session · ref · ts) text``."""
    parts = [hit.kind]
    if hit.session:
        parts.append(f"session {hit.session}")
    if hit.ref:
        parts.append(f"ref {hit.ref}")
    if hit.ts:
        parts.append(hit.ts[:10])
    role = hit.metadata.get("role")
    text = f"{role}: {hit.text}" if role and hit.kind == "message" else hit.text
    return f"[{i}] ({' · '.join(parts)}) {' '.join(text.split())}"


def confidence(hits: list[SearchHit]) -> float:
    """How much to trust the block: the best hit's closeness (1 − cosine distance) when the vector leg
    saw it, scaled by how many legs agree on it and by its quality factor; 0 with no hits."""
    if not hits:
        return 0.0
    best = 0.0
    for hit in hits[:3]:
        closeness = 1.0 - hit.breakdown["distance"] if "distance" in hit.breakdown else 0.4
        agreement = min(1.0, 0.7 + 0.15 * len(hit.provenance.legs))
        quality = min(1.0, hit.breakdown.get("quality", 1.0))
        best = max(best, max(0.0, min(1.0, closeness)) * agreement * quality)
    return round(best, 3)


def render(result: SearchResult, max_tokens: int = 1000, header: str = "Relevant memory") -> Context:
    """Numbered citations, best first, until ``max_tokens``; a hit that does not fit is truncated
    once (if at least 20 tokens remain) and the rest omitted."""
    lines = [f"{header} (cite as [n]):"]
    used = estimate_tokens(lines[0])
    cited: list[SearchHit] = []
    omitted: list[SearchHit] = []
    for hit in result.hits:
        line = hit_line(len(cited) + 1, hit)
        cost = estimate_tokens(line) + 1
        if used + cost <= max_tokens:
            lines.append(line)
            cited.append(hit)
            used += cost
        elif max_tokens - used >= 20 and not omitted:
            room = (max_tokens - used - 1) * CHARS_PER_TOKEN
            lines.append(line[: max(0, room - 1)] + "…")
            cited.append(hit)
            used = max_tokens
        else:
            omitted.append(hit)
    text = "\n".join(lines) if cited else f"{header}: nothing relevant found."
    return Context(text=text, citations=cited, confidence=confidence(cited), query_id=result.query_id, omitted=omitted)

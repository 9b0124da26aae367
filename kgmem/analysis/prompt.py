"""The extraction prompt (seed 003 §2.5, adapted to kgmem's four knowledge types and triples).

One call does extraction *and* contradiction detection: the prompt lists the
namespace's active knowledge, low-confidence items marked so the model does not
resurrect them without strong new evidence (the ghost-learning guard). Items a newer statement
superseded (``valid_until`` set) are listed apart, as earlier values with the date they stopped
being true, so the model neither takes an old value for the current one nor quotes it in
``contradicts``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

SYSTEM = """\
You extract durable knowledge from a conversation between a user and an AI agent:
what is worth remembering in FUTURE sessions.

Types (pick exactly one per item):
- fact: verified information about the user, the project or the world ("The API runs on port 8080")
- pattern: a recurring workflow or approach ("Deploys always go through the staging branch first")
- correction: the user corrected the agent ("The config file is YAML, not JSON")
- preference: how the user wants things done ("Prefers concise answers without emojis")

Rules:
1. Only extract what stays useful across sessions; skip small talk and one-off actions.
2. One self-contained sentence per item, specific enough to act on without the conversation.
3. When an item states a relation, also give it as a triple: subject, predicate (a short
   verb phrase such as "lives in", "prefers", "uses"), object.
4. Items listed under "Existing knowledge" are known already: do NOT repeat them.
   Items marked [low-confidence] were contradicted or never confirmed: do NOT extract them
   again unless the conversation gives strong new evidence.
5. If an item CONTRADICTS an existing one (another value for the same thing, a negation, a reversed
   preference, a changed status, a correction), set "contradicts" to that existing item's text,
   verbatim. Your answer is final: an item you do not mark is stored beside the existing ones.
   Items listed under "Earlier values" are no longer true (a newer statement replaced them): never
   quote them in "contradicts" and do not extract them again, unless the conversation says that
   value holds again.
6. confidence (0.0-1.0): how sure you are this is real and lasting (0.9 = stated explicitly by
   the user; 0.5 = inferred; below 0.3 = do not bother).

Answer with a JSON array ONLY (no prose, no code fence), for example:
[{"type": "preference", "content": "The user prefers tabs over spaces", "confidence": 0.9,
  "subject": "user", "predicate": "prefers", "object": "tabs over spaces", "contradicts": null}]
Answer [] if nothing is worth keeping.
"""

SESSION_NOTE = (
    "This is a sample of a whole session that has just ended. Keep only knowledge you are "
    "highly confident about (0.7 or more)."
)


def build_prompt(
    messages: Sequence[Mapping[str, Any]],
    existing: Sequence[Mapping[str, Any]],
    *,
    low_mark: float = 0.5,
    session_end: bool = False,
) -> str:
    """The user message: the conversation excerpt, then the existing knowledge.

    ``messages`` are dicts with ``role`` and ``text``; ``existing`` are knowledge dicts with
    ``type``, ``content``, ``confidence`` (and optionally ``is_manual``, ``valid_until``). Items with
    a ``valid_until`` (superseded) go under "Earlier values", each with the date it stopped being true.
    """
    parts: list[str] = []
    if session_end:
        parts += [SESSION_NOTE, ""]
    parts.append("## Conversation")
    for message in messages:
        parts.append(f"[{message.get('role', '?')}] {message.get('text', '')}")
    parts.append("")
    current = [item for item in existing if not item.get("valid_until")]
    earlier = [item for item in existing if item.get("valid_until")]
    if current:
        parts.append('## Existing knowledge (do NOT re-extract; quote one in "contradicts" if contradicted)')
        for item in current:
            confidence = float(item.get("confidence") or 0.0)
            mark = "[low-confidence] " if confidence < low_mark and not item.get("is_manual") else ""
            parts.append(f"- {mark}[{item.get('type', 'fact')}] {item.get('content', '')}")
        parts.append("")
    if earlier:
        parts.append('## Earlier values (no longer true: do NOT re-extract, never quote in "contradicts")')
        for item in earlier:
            until = str(item["valid_until"])[:10]
            parts.append(f"- [superseded {until}] [{item.get('type', 'fact')}] {item.get('content', '')}")
        parts.append("")
    parts.append("Answer with the JSON array now.")
    return "\n".join(parts)

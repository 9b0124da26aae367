"""The JSONL event format of ``kgmem ingest`` (one JSON object per line), validated.

    {"type": "turn", "session": "s1", "role": "user", "text": "...", "ref": "m1", "ts": "2024-05-01T10:00:00Z"}
    {"type": "tool_result", "tool": "pytest", "params": {...}, "error": "...", "session": "s1"}
    {"type": "tool_result", "tool": "pytest", "result": "...", "session": "s1"}
    {"type": "knowledge", "content": "...", "knowledge_type": "fact", "confidence": 0.8, "session": "s1"}
    {"type": "session_end", "session": "s1"}

Every check raises :class:`~kgmem.errors.ValidationError` naming the field.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from kgmem.conversation import Turn
from kgmem.conversation.store import validate_turn
from kgmem.errors import ValidationError

EVENT_TYPES = ("turn", "tool_result", "knowledge", "session_end")
_FIELDS = {
    "turn": {"type", "session", "role", "text", "ref", "ts"},
    "tool_result": {"type", "tool", "params", "result", "error", "session", "ts"},
    "knowledge": {"type", "content", "knowledge_type", "confidence", "session", "subject", "predicate",
                  "object", "manual"},
    "session_end": {"type", "session", "ts"},
}


@dataclass(frozen=True)
class ToolResultEvent:
    tool: str
    params: dict[str, Any] | None
    result: Any
    error: str | None
    session: str | None
    ts: str | None
    key: str  # content hash: the idempotency mark


@dataclass(frozen=True)
class KnowledgeEvent:
    content: str
    knowledge_type: str
    confidence: float
    session: str | None
    manual: bool
    triple: tuple[str, str, str] | None


@dataclass(frozen=True)
class SessionEndEvent:
    session: str


Event = Turn | ToolResultEvent | KnowledgeEvent | SessionEndEvent


def parse_line(line: str) -> Event | None:
    """Parse one JSONL line; blank lines and ``//`` comments give None."""
    stripped = line.strip()
    if not stripped or stripped.startswith("//"):
        return None
    try:
        raw = json.loads(stripped)
    except json.JSONDecodeError as exc:
        raise ValidationError(f"not valid JSON ({exc.msg} at column {exc.colno})") from None
    return parse_event(raw)


def parse_event(raw: Any) -> Event:
    """Validate one event object."""
    if not isinstance(raw, dict):
        raise ValidationError(f"event: must be a JSON object, got {type(raw).__name__}")
    etype = raw.get("type")
    if etype not in EVENT_TYPES:
        raise ValidationError(f"type: must be one of {', '.join(EVENT_TYPES)}; got {etype!r}")
    unknown = set(raw) - _FIELDS[etype]
    if unknown:
        raise ValidationError(f"{etype}: unknown field(s) {', '.join(sorted(unknown))}")
    if etype == "turn":
        return validate_turn({k: v for k, v in raw.items() if k != "type"}, "turn")
    if etype == "session_end":
        return SessionEndEvent(_text(raw, "session"))
    if etype == "tool_result":
        return _tool_result(raw)
    return _knowledge(raw)


def _text(raw: dict[str, Any], name: str, required: bool = True) -> str | None:
    value = raw.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(f"{raw['type']}.{name}: must be a non-empty string")
    return value


def _tool_result(raw: dict[str, Any]) -> ToolResultEvent:
    tool = _text(raw, "tool")
    params = raw.get("params")
    if params is not None and not isinstance(params, dict):
        raise ValidationError("tool_result.params: must be an object")
    error = raw.get("error")
    if error is not None and (not isinstance(error, str) or not error.strip()):
        raise ValidationError("tool_result.error: must be a non-empty string or absent")
    canonical = json.dumps(raw, sort_keys=True, ensure_ascii=False, default=str)
    return ToolResultEvent(
        tool=tool, params=params, result=raw.get("result"), error=error,  # type: ignore[arg-type]
        session=_text(raw, "session", required=False), ts=_text(raw, "ts", required=False),
        key=hashlib.sha256(canonical.encode()).hexdigest()[:32],
    )


def _knowledge(raw: dict[str, Any]) -> KnowledgeEvent:
    content = _text(raw, "content")
    ktype = raw.get("knowledge_type", "fact")
    if not isinstance(ktype, str):
        raise ValidationError("knowledge.knowledge_type: must be a string")
    conf = raw.get("confidence", 0.5)
    if isinstance(conf, bool) or not isinstance(conf, (int, float)) or not 0.0 <= conf <= 1.0:
        raise ValidationError("knowledge.confidence: must be a number between 0 and 1")
    manual = raw.get("manual", False)
    if not isinstance(manual, bool):
        raise ValidationError("knowledge.manual: must be true or false")
    parts = [raw.get(k) for k in ("subject", "predicate", "object")]
    if any(p is not None for p in parts) and not all(isinstance(p, str) and p.strip() for p in parts):
        raise ValidationError("knowledge.subject/predicate/object: give all three as strings, or none")
    return KnowledgeEvent(
        content=content, knowledge_type=ktype.strip().lower(), confidence=float(conf),  # type: ignore[arg-type]
        session=_text(raw, "session", required=False), manual=manual,
        triple=tuple(parts) if parts[0] is not None else None,  # type: ignore[arg-type]
    )

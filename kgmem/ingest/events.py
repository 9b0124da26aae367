"""The JSONL event format of ``kgmem ingest`` (one JSON object per line), validated.

    {"type": "turn", "session": "s1", "role": "user", "text": "...", "ref": "m1", "ts": "2024-05-01T10:00:00Z"}
    {"type": "tool_result", "tool": "pytest", "params": {...}, "error": "...", "session": "s1"}
    {"type": "tool_result", "tool": "pytest", "result": "...", "session": "s1"}
    {"type": "knowledge", "content": "...", "knowledge_type": "fact", "confidence": 0.8, "session": "s1"}
    {"type": "session_end", "session": "s1"}

Every check raises :class:`~kgmem.errors.ValidationError` naming the field.

Identity (what makes a re-run add nothing): a turn is its message id (session + ref, or its
content); a tool result or knowledge line is its content — and identical lines are *distinct*
events (10 identical lines count 10 occurrences, at any batch size) unless they carry the same
explicit ``"id"``. See :func:`kgmem.ingest.ingester.event_key`.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Literal, TypeVar, overload

from pydantic import ValidationError as PydanticValidationError

from kgmem.analysis.schema import KNOWLEDGE_TYPES, MAX_CONTENT_CHARS, ExtractedItem
from kgmem.conversation import Turn
from kgmem.conversation.store import validate_turn
from kgmem.errors import ValidationError
from kgmem.timestamps import normalise_ts

EVENT_TYPES = ("turn", "tool_result", "knowledge", "session_end")
# Names (tool, session, ref, id) are index keys in Neo4j, whose limit is ~8 KB per key: a
# longer one would fail its whole batch there, so it is rejected here with its line number.
MAX_IDENTIFIER_BYTES = 4096
_FIELDS = {
    "turn": {"type", "session", "role", "text", "ref", "ts"},
    "tool_result": {"type", "id", "tool", "params", "result", "error", "session", "ts"},
    "knowledge": {
        "type",
        "id",
        "content",
        "knowledge_type",
        "confidence",
        "session",
        "subject",
        "predicate",
        "object",
        "manual",
        "ts",
    },
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
    key: str  # content hash (see event_key for how it becomes the idempotency mark)
    event_id: str | None = None  # explicit "id": identical ids are one event


@dataclass(frozen=True)
class KnowledgeEvent:
    content: str
    knowledge_type: str
    confidence: float
    session: str | None
    manual: bool
    triple: tuple[str, str, str] | None
    key: str = ""
    event_id: str | None = None
    ts: str | None = None  # when it was stated: the item is valid from then (None: when it is stored)


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
        # A file line with an identifier over the limit is named as a bad line (the Python API instead
        # stores such keys hashed, kgmem.graph.keys): check the raw values, before validate_turn bounds them.
        for name in ("session", "ref"):
            if isinstance(raw.get(name), str):
                _bounded(f"turn.{name}", raw[name])
        return validate_turn({k: v for k, v in raw.items() if k != "type"}, "turn")
    if etype == "session_end":
        if raw.get("ts") is not None:
            normalise_ts(raw["ts"], "session_end.ts")
        return SessionEndEvent(_bounded("session_end.session", _text(raw, "session")))
    if etype == "tool_result":
        return _tool_result(raw)
    return _knowledge(raw)


_MaybeStr = TypeVar("_MaybeStr", bound=str | None)


@overload
def _text(raw: dict[str, Any], name: str, required: Literal[True] = True) -> str: ...
@overload
def _text(raw: dict[str, Any], name: str, required: bool) -> str | None: ...
def _text(raw: dict[str, Any], name: str, required: bool = True) -> str | None:
    value = raw.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(f"{raw['type']}.{name}: must be a non-empty string")
    return value


def _bounded(name: str, value: _MaybeStr) -> _MaybeStr:
    if value is not None and len(value.encode("utf-8", "surrogatepass")) > MAX_IDENTIFIER_BYTES:
        raise ValidationError(f"{name}: longer than {MAX_IDENTIFIER_BYTES} bytes")
    return value


def _content_key(raw: dict[str, Any]) -> str:
    canonical = json.dumps(raw, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _event_id(raw: dict[str, Any]) -> str | None:
    return _bounded(f"{raw['type']}.id", _text(raw, "id", required=False))


def _tool_result(raw: dict[str, Any]) -> ToolResultEvent:
    tool = _bounded("tool_result.tool", _text(raw, "tool"))
    params = raw.get("params")
    if params is not None and not isinstance(params, dict):
        raise ValidationError("tool_result.params: must be an object")
    error = raw.get("error")
    if error is not None and (not isinstance(error, str) or not error.strip()):
        raise ValidationError("tool_result.error: must be a non-empty string or absent")
    ts = raw.get("ts")
    return ToolResultEvent(
        tool=tool,
        params=params,
        result=raw.get("result"),
        error=error,
        session=_bounded("tool_result.session", _text(raw, "session", required=False)),
        ts=None if ts is None else normalise_ts(ts, "tool_result.ts"),
        key=_content_key(raw),
        event_id=_event_id(raw),
    )


def _knowledge(raw: dict[str, Any]) -> KnowledgeEvent:
    content = _text(raw, "content")
    if len(content) > MAX_CONTENT_CHARS:
        raise ValidationError(f"knowledge.content: longer than {MAX_CONTENT_CHARS} characters")
    ktype = raw.get("knowledge_type", "fact")
    if not isinstance(ktype, str) or ktype.strip().lower() not in KNOWLEDGE_TYPES:
        raise ValidationError(f"knowledge.knowledge_type: must be one of {', '.join(KNOWLEDGE_TYPES)}; got {ktype!r}")
    conf = raw.get("confidence", 0.5)
    if isinstance(conf, bool) or not isinstance(conf, (int, float)) or not 0.0 <= conf <= 1.0:
        raise ValidationError("knowledge.confidence: must be a number between 0 and 1")
    manual = raw.get("manual", False)
    if not isinstance(manual, bool):
        raise ValidationError("knowledge.manual: must be true or false")
    parts = [raw.get(k) for k in ("subject", "predicate", "object")]
    if any(p is not None for p in parts) and not all(isinstance(p, str) and p.strip() for p in parts):
        raise ValidationError("knowledge.subject/predicate/object: give all three as strings, or none")
    if not manual:  # what the knowledge store will build from it: fail on this line, not its batch
        try:
            ExtractedItem(
                type=ktype.strip().lower(),
                content=content,
                confidence=float(conf),
                subject=parts[0],
                predicate=parts[1],
                object=parts[2],
            )
        except PydanticValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "item"
            raise ValidationError(f"knowledge.{where}: {first['msg']}") from None
    return KnowledgeEvent(
        content=content,
        knowledge_type=ktype.strip().lower(),
        confidence=float(conf),
        session=_bounded("knowledge.session", _text(raw, "session", required=False)),
        manual=manual,
        triple=tuple(parts) if parts[0] is not None else None,  # type: ignore[arg-type]
        key=_content_key(raw),
        event_id=_event_id(raw),
        ts=None if raw.get("ts") is None else normalise_ts(raw["ts"], "knowledge.ts"),
    )

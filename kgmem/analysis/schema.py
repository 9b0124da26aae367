"""What an extractor may hand to the knowledge store, and how raw model output is checked.

The model is asked for a JSON array of items. :func:`parse_items` accepts exactly
that (a surrounding Markdown code fence is tolerated, nothing else): each element
is validated on its own, so one bad item is skipped and counted while the rest of
the answer is kept. Malformed JSON yields no items and ``malformed=True`` — never
an exception.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

KnowledgeType = Literal["fact", "pattern", "correction", "preference"]
KNOWLEDGE_TYPES: tuple[str, ...] = ("fact", "pattern", "correction", "preference")

MAX_CONTENT_CHARS = 1000
MAX_TERM_CHARS = 200  # subject / predicate / object

_WS = re.compile(r"\s+")
_FENCE = re.compile(r"^\s*```[a-zA-Z]*\s*\n(.*)\n\s*```\s*$", re.S)


def normalise_text(text: str) -> str:
    """Lower-case, collapse whitespace, strip trailing punctuation: the key of exact dedup."""
    return _WS.sub(" ", text).strip().rstrip(".!;,").strip().lower()


def normalise_term(text: str) -> str:
    """Entity names and predicates: whitespace collapsed, surrounding punctuation removed."""
    return _WS.sub(" ", text).strip().strip(".,;:!?\"'").strip()


class ExtractedItem(BaseModel):
    """One piece of knowledge proposed by an extractor.

    ``subject``/``predicate``/``object`` come together or not at all; ``predicate`` is
    stored as data on a ``RELATES_TO`` edge, never as a relationship type.
    ``contradicts`` quotes the existing item this one contradicts.
    """

    model_config = ConfigDict(extra="ignore", frozen=True, str_strip_whitespace=True)

    type: KnowledgeType
    content: str = Field(min_length=3, max_length=MAX_CONTENT_CHARS)
    confidence: float = Field(ge=0.0, le=1.0)
    subject: str | None = Field(None, max_length=MAX_TERM_CHARS)
    predicate: str | None = Field(None, max_length=MAX_TERM_CHARS)
    object: str | None = Field(None, max_length=MAX_TERM_CHARS)
    contradicts: str | None = Field(None, max_length=MAX_CONTENT_CHARS)

    @field_validator("type", mode="before")
    @classmethod
    def _lower_type(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("confidence", mode="before")
    @classmethod
    def _no_bool(cls, value: Any) -> Any:
        # pydantic would read true as 1.0; a boolean is not a confidence.
        if isinstance(value, bool):
            raise ValueError("must be a number between 0 and 1")
        return value

    @field_validator("subject", "predicate", "object", "contradicts", mode="before")
    @classmethod
    def _blank_is_none(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = normalise_term(value) if value.strip() else None
        return value or None

    @model_validator(mode="after")
    def _whole_triple(self) -> ExtractedItem:
        parts = (self.subject, self.predicate, self.object)
        if any(parts) and not all(parts):
            raise ValueError("subject, predicate and object must be given together")
        return self

    @property
    def has_triple(self) -> bool:
        return self.subject is not None

    @property
    def norm(self) -> str:
        return normalise_text(self.content)


@dataclass
class ParseResult:
    """Valid items, how many were rejected (with reasons), and whether the JSON itself was broken."""

    items: list[ExtractedItem] = field(default_factory=list)
    invalid: int = 0
    errors: list[str] = field(default_factory=list)
    malformed: bool = False


def parse_items(text: str) -> ParseResult:
    """Parse a model answer: a JSON array of item objects (or ``{"items": [...]}``)."""
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1).strip()
    try:
        data = json.loads(body)
    except (json.JSONDecodeError, TypeError) as exc:
        return ParseResult(malformed=True, errors=[f"not JSON: {exc}"])
    if isinstance(data, dict) and isinstance(data.get("items"), list):
        data = data["items"]
    if not isinstance(data, list):
        return ParseResult(malformed=True, errors=[f"expected a JSON array, got {type(data).__name__}"])
    return validate_items(data)


def validate_items(raw: list[Any]) -> ParseResult:
    """Validate each element; invalid ones are counted with a reason naming the field."""
    result = ParseResult()
    for index, element in enumerate(raw):
        try:
            result.items.append(ExtractedItem.model_validate(element))
        except ValidationError as exc:
            result.invalid += 1
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "item"
            result.errors.append(f"items[{index}].{where}: {first['msg']}")
    return result

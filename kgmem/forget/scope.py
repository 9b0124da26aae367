"""What one ``forget`` call names: exactly one scope, checked before anything is read or erased."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from kgmem.analysis.store import entity_id
from kgmem.errors import ValidationError
from kgmem.tombstones import EVERYTHING, session_node_id

ScopeKind = Literal["id", "session", "entity", "everything"]
SCOPES: tuple[ScopeKind, ...] = ("id", "session", "entity", "everything")


class ForgetTargetNotFound(ValidationError):
    """The id, session or entity a forget names is not in the namespace (nothing was erased)."""


@dataclass(frozen=True)
class Scope:
    """One forget scope: ``kind`` and the caller's ``value`` (None for ``everything``)."""

    kind: ScopeKind
    value: str | None = None

    def target(self, ns: str) -> str:
        """The scope's content-free target: an id (a hash) — what the audit trail and tombstones record,
        never a session's or an entity's name."""
        if self.kind == "id":
            return str(self.value)
        if self.kind == "session":
            return session_node_id(ns, str(self.value))
        if self.kind == "entity":
            return entity_id(ns, str(self.value))
        return EVERYTHING


def _text(name: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(f"{name}: must be a non-empty string")
    return value


def parse_scope(
    *, id: str | None = None, session: str | None = None, entity: str | None = None, everything: bool = False
) -> Scope:
    """The one scope of a forget call.

    Raises:
        ValidationError: no scope, more than one, or a scope value of the wrong type or empty.
    """
    if not isinstance(everything, bool):
        raise ValidationError("everything: must be true or false")
    given = [name for name, value in (("id", id), ("session", session), ("entity", entity)) if value is not None]
    if everything:
        given.append("everything")
    if not given:
        raise ValidationError("forget: name what to forget: id=, session=, entity= or everything=True")
    if len(given) > 1:
        raise ValidationError(f"forget: one scope per call, got {' and '.join(given)}")
    kind = given[0]
    if kind == "everything":
        return Scope("everything")
    value = _text(kind, {"id": id, "session": session, "entity": entity}[kind])
    if kind == "id":
        value = value.strip()
    return Scope(kind, value)  # type: ignore[arg-type]

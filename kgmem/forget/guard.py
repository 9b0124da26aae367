"""The spool's screen: spooled events a later forget made void are dropped at replay.

A spooled line carries the time it was spooled (``at_ms``). At replay, an event spooled before a
forget of its session or namespace or of an entity its text names, or naming a forgotten turn or
knowledge item, is not applied
(:func:`spool_filter_op`; the composition root hands it to the spool replayer). The other checks
where events enter are in :mod:`kgmem.tombstones`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kgmem.analysis.store import knowledge_id
from kgmem.conversation.store import Turn, message_id
from kgmem.runner import Op
from kgmem.tombstones import EVERYTHING, NameTombstones, screened_op, session_node_id


def _keys(ns: str, kind: str, event: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """(the event's session id, the id of the item it writes) for the kinds the spool holds."""
    session = event.get("session")
    session_id = session_node_id(ns, session) if isinstance(session, str) and session else None
    item = None
    if kind == "turn" and isinstance(session, str) and session and isinstance(event.get("text"), str):
        turn = Turn(session, str(event.get("role")), event["text"], event.get("ref"), event.get("ts"))
        item = message_id(ns, turn)
    elif kind == "knowledge" and isinstance(event.get("content"), str):
        item = knowledge_id(ns, event["content"])
    return session_id, item


def spool_filter_op(
    ns: str, kind: str, events: Sequence[dict[str, Any]], names: NameTombstones | None = None
) -> Op[list[dict[str, Any]]]:
    """``events`` without the ones a forget made void: spooled (``at_ms``) before a forget of their
    session or namespace, or of an entity their text names, or naming a forgotten turn or knowledge
    item. ``names``: the client's :class:`~kgmem.tombstones.NameTombstones` (one read either way)."""
    keys = [_keys(ns, kind, e) for e in events]
    wanted = [EVERYTHING, *(k for pair in keys for k in pair if k)]
    texts = [[e.get("text"), e.get("content")] for e in events]
    gone, mentioned = yield from screened_op(ns, wanted, texts, names)
    if not gone:
        return list(events)
    kept = []
    for event, (session_id, item), named in zip(events, keys, mentioned):
        at = int(event.get("at_ms") or 0)  # a line spooled by an older kgmem: before any forget
        if item is not None and item in gone:
            continue
        if any(k in gone and at <= gone[k] for k in (EVERYTHING, session_id, *named) if k):
            continue
        kept.append(event)
    return kept

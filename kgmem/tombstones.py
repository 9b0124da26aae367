"""Tombstones, read where events enter the graph: the checks that keep a forgotten item from coming
back (docs/forgetting.md). A forget (:mod:`kgmem.forget`) writes a content-free tombstone for every
id it erases and one for the session, entity or namespace it names, with the time of the forget.
An event recorded *before* that time must not bring the content back; one recorded after is new data.

This module depends on the stores' request types only, so the writers (analysis, conversation)
can call it without depending on :mod:`kgmem.forget`:

* :func:`tombstoned_op` — which of some ids are tombstoned (the knowledge store drops extracted
  items, and triples naming entities, that a forget erased);
* :func:`guard_job` — an analysis job whose window began before a forget of its session or
  namespace writes no knowledge (a queued window, a late LLM answer).

A turn whose message id is tombstoned is refused inside ``conversation/record_turns`` itself, and
spooled events are screened at replay (:func:`kgmem.forget.guard.spool_filter_op`).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from kgmem.graph.keys import bounded_key
from kgmem.ids import node_id
from kgmem.runner import Op, Read, Write

#: The tombstone id of a whole namespace (forget everything).
EVERYTHING = "*"
#: The analysis write a forgotten session's late job must not make.
KNOWLEDGE_WRITE = "analysis/apply_knowledge"


def now_ms() -> int:
    return int(time.time() * 1000)


def session_node_id(ns: str, session: str) -> str:
    """The ``Session`` node id of a session name (as the turn store writes it)."""
    return node_id(ns, "session", bounded_key(session))


def tombstoned_op(ns: str, ids: Iterable[str]) -> Op[dict[str, int]]:
    """The tombstoned ones among ``ids``: id -> when it was forgotten (epoch ms)."""
    wanted = sorted({i for i in ids if i})
    if not wanted:
        return {}
    rows = yield Read("forget/tombstoned", {"ns": ns, "ids": wanted})
    return {r["id"]: int(r["at_ms"] or 0) for r in rows}


def guard_job(op: Op[Any], ns: str, session: str, since_ms: int | None) -> Op[Any]:
    """Run an analysis job's operation ``op``; its knowledge write is skipped (answered as if every row
    had vanished) when its session or namespace was forgotten after the job's window began
    (``since_ms``) — the check runs just before the write, so a late result is caught too."""
    try:
        request = next(op)
        while True:
            if since_ms is not None and isinstance(request, Write) and request.name == KNOWLEDGE_WRITE:
                gone = yield from tombstoned_op(ns, [EVERYTHING, session_node_id(ns, session)])
                if any(at >= since_ms for at in gone.values()):
                    request = op.send([])
                    continue
            try:
                value = yield request
            except BaseException as exc:  # noqa: BLE001 - handed to the operation, as `yield from` does
                request = op.throw(exc)
            else:
                request = op.send(value)
    except StopIteration as stop:
        return stop.value

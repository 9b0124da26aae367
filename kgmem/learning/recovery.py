"""One recovery = one Fix (pure; no I/O).

A *recovery* is a failure of tool T in session S and what ended it. kgmem learns of it in
one of two orders, and either way it ends up as ONE success on ONE ``RESOLVED_BY`` edge:

- **observed, then named**: T fails, T succeeds (the parameter change is recorded as an
  ``observed`` fix, +1 success), then ``resolve(obs, "what I did")`` for that failure. The
  resolve does not add a second Fix: it *confirms* the recovery — when the description is
  the observed one, the edge is only upgraded to the caller's source; otherwise the
  recovery's success moves from the observed fix to the caller's fix (the observed edge
  is removed if nothing else supports it, and its Fix node if no error uses it).
- **named, then observed**: T fails, ``resolve(obs, "what I did")`` (+1 success, the fix
  is *declared* on the open failure), then T succeeds: that success completes the
  recovery with the declared fix and counts nothing more.

"The fix used" by a session is the fix of the last recovery of that tool in that session.
The next success of T in S after the recovering one (a success after a success) is
evidence that the fix held: it boosts that fix once and marks the recovery ``held`` —
once, so a long healthy session does not saturate confidence from a single recovery.

State lives on the ``IN_SESSION`` edge of the error in the session: ``open``,
``declared_fix``, ``recovery_fix``, ``held``, ``recovered_at``
(``cypher/learning/apply_events.cypher``, ``$recoveries``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

Key = tuple[str, str]  # (session id, tool)


def recovery_row(
    error_id: str, session_id: str, tool: str, fix_id: str, description: str | None, info: Any
) -> dict[str, Any]:
    """The ``$recoveries`` row of a success that completed a recovery with ``fix_id``."""
    return {
        "error_id": error_id,
        "session_id": session_id,
        "tool": tool,
        "fix_id": fix_id,
        "description": description,
        "pattern": info.pattern,
        "category": info.category,
        "kind": "recovery",
        "held": False,
        "fresh": True,
    }


def held_outcome(recovery: Mapping[str, Any], at: str) -> dict[str, Any]:
    """The fix outcome of "the fix held": one more success on the recovery's edge."""
    return {
        "error_id": recovery["error_id"],
        "tool": recovery["tool"],
        "pattern": recovery.get("pattern") or "",
        "signature": "",
        "keys": "",
        "category": recovery.get("category") or "general",
        "fix_id": recovery["fix_id"],
        "description": recovery.get("description"),
        "source": "observed",
        "success": True,
        "at": at,
        "session_id": recovery.get("session_id"),
    }


class RecentRecoveries:
    """The last unheld recovery per (session, tool) while a batch is planned.

    Seeded from the graph rows of ``learning/open_failures`` with ``open = false`` (the
    latest unheld recovery); updated as the batch's own events recover, fail and hold.
    """

    def __init__(self, graph_rows: Mapping[Key, Sequence[Mapping[str, Any]]]) -> None:
        self._last: dict[Key, dict[str, Any] | None] = {}
        for key, rows in graph_rows.items():
            done = [r for r in rows if not r.get("open", True) and r.get("recovery_fix")]
            if done:
                row = max(done, key=lambda r: r.get("recovered_at") or "")
                self._last[key] = {
                    "error_id": row["error_id"],
                    "session_id": key[0],
                    "tool": key[1],
                    "fix_id": row["recovery_fix"],
                    "description": row.get("recovery_description"),
                    "pattern": row.get("pattern"),
                    "category": row.get("category"),
                    "kind": "recovery",
                    "held": False,
                    "fresh": False,
                }

    def superseded(self, key: Key) -> None:
        """A new failure of the tool in the session: the next success is a new recovery, not a hold."""
        self._last[key] = None

    def recovered(self, key: Key, recovery: dict[str, Any]) -> None:
        self._last[key] = recovery

    def hold(self, key: Key) -> dict[str, Any] | None:
        """The ``$recoveries`` row marking the last recovery held, or None if there is none to hold."""
        last = self._last.get(key)
        if last is None or last["held"]:
            return None
        held = {**last, "held": True, "fresh": False}
        self._last[key] = held
        return held


def plan_resolve(
    outcome: dict[str, Any], state: Mapping[str, Any] | None, session_id: str | None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """``(outcomes, retracts, recoveries)`` for one ``resolve()``.

    ``state`` is the ``IN_SESSION`` edge of the error in the caller's session
    (``learning/recovery_state``), or None when the session is unknown or the error never
    occurred in it: then the fix outcome is recorded as it is.
    """
    if state is None or session_id is None:
        return [outcome], [], []
    base = {
        "error_id": outcome["error_id"],
        "session_id": session_id,
        "tool": state["tool"],
        "fix_id": outcome["fix_id"],
        "held": False,
        "fresh": False,
    }
    if not outcome["success"]:
        if state.get("open") and state.get("declared_fix") == outcome["fix_id"]:
            return [outcome], [], [{**base, "kind": "declared", "fix_id": None}]  # it did not work after all
        return [outcome], [], []
    if state.get("open"):
        return [outcome], [], [{**base, "kind": "declared"}]
    current = state.get("recovery_fix")
    if current is None:  # closed before recoveries were recorded: nothing to confirm
        return [outcome], [], []
    weight = 2 if state.get("held") else 1  # the hold's success moves with the recovery
    if current == outcome["fix_id"]:
        return [{**outcome, "weight": 0}], [], []  # confirm and name; already counted
    return (
        [{**outcome, "weight": weight}],
        [{"error_id": outcome["error_id"], "fix_id": current, "weight": weight}],
        [{**base, "kind": "recovery", "held": bool(state.get("held"))}],
    )

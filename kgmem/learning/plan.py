"""Turning tool-call events into one graph write (pure; no I/O).

A batch of events becomes the parameters of ``learning/apply_events``:

- error rows, one per (pattern, session), with occurrence counts;
- observed fixes: when a tool succeeds in a session after failing there, the
  difference between the failing call's parameters and the succeeding call's
  parameters is the candidate fix ("retry with the same parameters" when nothing
  changed); the success is recorded as a successful application of that fix;
- closed failures: a success closes every open failure of that tool in that session;
- recoveries (one recovery = one Fix, :mod:`kgmem.learning.recovery`): the success that
  closes a failure records which fix recovered it; if ``resolve()`` already named the fix
  while the failure was open, that fix is the recovery and no second success is counted.
  The next success of the same tool in the same session is evidence the fix held: it
  boosts that recovery's fix once (then the recovery is marked ``held``).

The most recent open failure wins when several are open.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from kgmem import kinds
from kgmem.errors import ValidationError
from kgmem.graph.keys import bounded_key, bounded_optional
from kgmem.ids import node_id
from kgmem.learning.categories import categorize
from kgmem.learning.core import GENERIC_EXCEPTIONS, extract_core
from kgmem.learning.normalize import ERROR_MAX_CHARS, bound_error_text, normalize_error, pattern_and_signature
from kgmem.learning.recovery import RecentRecoveries, held_outcome, recovery_row
from kgmem.learning.similarity import encode_keys, error_keys
from kgmem.learning.templates import keep_zero_durations, template
from kgmem.timestamps import normalise_ts

ERROR_KIND = kinds.ERROR.name
FIX_KIND = kinds.FIX.name
_VALUE_MAX = 200  # characters of a parameter value shown in a fix description


@dataclass(frozen=True)
class Prepared:
    """One validated event. ``message`` is None for a success."""

    tool: str
    params: dict[str, Any]
    message: str | None
    exc_types: tuple[str, ...]
    session: str | None
    ts: str

    def to_json(self, seq: int, ns: str) -> dict[str, Any]:
        """The spool line of this event."""
        return {
            "seq": seq,
            "ns": ns,
            "tool": self.tool,
            "params": self.params,
            "message": self.message,
            "exc_types": list(self.exc_types),
            "session": self.session,
            "ts": self.ts,
        }

    @classmethod
    def from_json(cls, row: Mapping[str, Any]) -> Prepared:
        return cls(
            row["tool"],
            dict(row.get("params") or {}),
            row.get("message"),
            tuple(row.get("exc_types") or ()),
            row.get("session"),
            row["ts"],
        )


@dataclass(frozen=True)
class ErrorInfo:
    """What normalisation makes of one error message.

    ``pattern`` (the whole message normalised) decides the node id; ``signature`` (the
    normalised core, what is embedded), ``template`` (of the core) and ``keys`` (identity
    keys of the core) decide matching (:mod:`kgmem.learning.matching`).
    """

    id: str
    pattern: str
    signature: str
    keys: str
    category: str
    template: str = ""


@dataclass
class Plan:
    """Parameters for one ``learning/apply_events`` call, plus bookkeeping."""

    errors: list[dict[str, Any]] = field(default_factory=list)
    outcomes: list[dict[str, Any]] = field(default_factory=list)
    closes: list[dict[str, Any]] = field(default_factory=list)
    recoveries: list[dict[str, Any]] = field(default_factory=list)
    error_of_event: list[str | None] = field(default_factory=list)  # error id per input event
    # per input event, for a success: (error id, fix id) of the recovery it made or the fix it held
    fix_of_event: list[tuple[str, str] | None] = field(default_factory=list)
    successes: int = 0


def now_iso() -> str:
    return datetime.now(UTC).isoformat()


def prepare(
    tool: Any,
    params: Any = None,
    error: Any = None,
    session: Any = None,
    ts: Any = None,
    error_max_chars: int = ERROR_MAX_CHARS,
) -> Prepared:
    """Validate one event; raises :class:`ValidationError` naming the bad field. An error message
    longer than ``error_max_chars`` keeps its head and tail (:func:`~kgmem.learning.normalize.bound_error_text`)."""
    if not isinstance(tool, str) or not tool.strip():
        raise ValidationError("tool: must be a non-empty string")
    if params is None:
        params = {}
    if not isinstance(params, Mapping):
        raise ValidationError(f"params: must be a mapping (dict) or None; got {type(params).__name__}")
    if session is not None and (not isinstance(session, str) or not session.strip()):
        raise ValidationError("session: must be a non-empty string or None")
    tool, session = bounded_key(tool.strip()), bounded_optional(session)  # over ~1 KB: a stable hashed key
    if ts is not None:
        ts = normalise_ts(ts)  # a bad ts would be stored and break the reports that date events
    message: str | None = None
    exc_types: tuple[str, ...] = ()
    if isinstance(error, BaseException):
        text = str(error)
        message = f"{type(error).__name__}: {text}" if text else type(error).__name__
        exc_types = tuple(c.__name__ for c in type(error).__mro__ if c not in (object, BaseException, Exception))
    elif isinstance(error, str):
        if not error.strip():
            raise ValidationError("error: must be a non-empty string or an exception")
        message = error
    elif error is not None:
        raise ValidationError(f"error: must be a string or an exception; got {type(error).__name__}")
    if message is not None:
        message = bound_error_text(message, error_max_chars)
    return Prepared(tool.strip(), _jsonable(dict(params)), message, exc_types, session, ts or now_iso())


def describe_error(ns: str, tool: str, message: str, exc_types: Sequence[str] = ()) -> ErrorInfo:
    """Pattern, core signature, template, keys, category and deterministic id of an error message."""
    pattern = keep_zero_durations(normalize_error, message)
    return _describe_core(ns, tool, pattern, message, exc_types)


def _describe_core(ns: str, tool: str, pattern: str, message: str, exc_types: Sequence[str]) -> ErrorInfo:
    core = extract_core(message)
    core_pattern, sig = pattern_and_signature(core.text)
    keys = {**error_keys(core_pattern), **core.identity()}
    if "exc" not in keys and exc_types and exc_types[0] not in GENERIC_EXCEPTIONS:
        keys["exc"] = frozenset({exc_types[0]})  # the raised class itself, when the caller passed one
    return ErrorInfo(
        id=node_id(ns, ERROR_KIND, tool, pattern),
        pattern=pattern,
        signature=sig,
        keys=encode_keys(keys),
        category=categorize(message, exc_types),
        template="\n".join(template(line) for line in core.lines),
    )


class ErrorDescriber:
    """:func:`describe_error` with a bounded memo keyed by (namespace, tool, pattern, exception class).

    A repeated error has the same pattern (it decides the node id), and everything else
    describe_error derives (core, template, keys, category) is written only when the node is
    created. So a repeat costs one normalisation, not the whole core/template analysis —
    this keeps ``tool_result`` on a known error within its latency budget. One per engine.

    ``error_max_chars``: a longer message is bounded first (:func:`~kgmem.learning.normalize.bound_error_text`),
    as :func:`prepare` bounds it — an error named by its message in ``resolve`` gets the same id.
    """

    def __init__(self, size: int = 4096, error_max_chars: int = ERROR_MAX_CHARS) -> None:
        self.size = size
        self.error_max_chars = error_max_chars
        self._memo: OrderedDict[tuple[str, str, str, str], ErrorInfo] = OrderedDict()

    def __call__(self, ns: str, tool: str, message: str, exc_types: Sequence[str] = ()) -> ErrorInfo:
        message = bound_error_text(message, self.error_max_chars)
        pattern = keep_zero_durations(normalize_error, message)
        key = (ns, tool, pattern, exc_types[0] if exc_types else "")
        info = self._memo.get(key)
        if info is None:
            info = _describe_core(ns, tool, pattern, message, exc_types)
            self._memo[key] = info
            if len(self._memo) > self.size:
                self._memo.popitem(last=False)
        else:
            self._memo.move_to_end(key)
        return info


def fix_description(tool: str, before: Mapping[str, Any], after: Mapping[str, Any]) -> str:
    """Human-readable parameter change from a failing call to a succeeding one."""
    changes: list[str] = []
    for key in sorted(set(before) | set(after), key=str):
        if key not in after:
            changes.append(f"remove {key}")
        elif key not in before:
            changes.append(f"set {key}={_show(after[key])}")
        elif before[key] != after[key]:
            changes.append(f"set {key}={_show(after[key])} (was {_show(before[key])})")
    if not changes:
        return f"{tool}: retry with the same parameters"
    return f"{tool}: " + "; ".join(changes)


def fix_id(ns: str, description: str) -> str:
    return node_id(ns, FIX_KIND, " ".join(description.lower().split()))


def plan_batch(
    ns: str,
    events: Sequence[Prepared],
    example_max: int,
    open_failures: Mapping[tuple[str, str], Sequence[Mapping[str, Any]]] = {},
    describe: Callable[..., ErrorInfo] = describe_error,
) -> Plan:
    """Plan the graph write for ``events`` (in order).

    ``open_failures`` maps (session id, tool) to the failures still open in the graph
    before this batch, newest first (rows of ``learning/open_failures``).
    """
    plan = Plan()
    rows: dict[tuple[str, str | None], dict[str, Any]] = {}
    latest: dict[tuple[str, str], dict[str, Any]] = {}  # (session id, tool) -> newest failure in batch
    closed_in_graph: set[tuple[str, str]] = set()
    recent = RecentRecoveries(open_failures)
    for ev in events:
        sid = node_id(ns, "session", ev.session) if ev.session else None
        if ev.message is not None:
            info = describe(ns, ev.tool, ev.message, ev.exc_types)
            plan.error_of_event.append(info.id)
            plan.fix_of_event.append(None)
            row = rows.get((info.id, sid))
            if row is None:
                row = rows[(info.id, sid)] = {
                    "id": info.id,
                    "tool_id": node_id(ns, "tool", ev.tool),
                    "tool": ev.tool,
                    "session_id": sid,
                    "session": ev.session,
                    "pattern": info.pattern,
                    "signature": info.signature,
                    "keys": info.keys,
                    "category": info.category,
                    "template": info.template,
                    "count": 0,
                    "first": ev.ts,
                    "last": ev.ts,
                    "open": False,
                    "params": None,
                }
            row["count"] += 1
            row["first"], row["last"] = min(row["first"], ev.ts), max(row["last"], ev.ts)
            row["example"] = ev.message[:example_max]
            if sid:
                latest[(sid, ev.tool)] = {"error_id": info.id, "params": ev.params, "row": row, "info": info}
                recent.superseded((sid, ev.tool))
                row["params"] = json.dumps(ev.params, sort_keys=True, default=str)
            continue
        plan.error_of_event.append(None)
        plan.successes += 1
        if not sid:
            plan.fix_of_event.append(None)
            continue
        key = (sid, ev.tool)
        failure = latest.pop(key, None)
        graph_open = [] if key in closed_in_graph else [r for r in open_failures.get(key, ()) if r.get("open", True)]
        if failure is None and graph_open:
            newest = graph_open[0]
            failure = {
                "error_id": newest["error_id"],
                "params": _loads(newest.get("params")),
                "declared": newest.get("declared_fix"),
                "info": ErrorInfo(
                    newest["error_id"], newest.get("pattern") or "", "", "", newest.get("category") or "general"
                ),
            }
        for row in rows.values():  # every in-batch failure of this tool in this session closes
            if row["session_id"] == sid and row["tool"] == ev.tool:
                row["open"] = False
        for g in graph_open:
            plan.closes.append({"error_id": g["error_id"], "session_id": sid})
        closed_in_graph.add(key)
        if failure is None:
            held = recent.hold(key)  # a success after a success: the last recovery's fix held
            if held is not None:
                plan.outcomes.append(held_outcome(held, ev.ts))
                plan.recoveries.append(held)
            plan.fix_of_event.append((held["error_id"], held["fix_id"]) if held else None)
            continue
        info = failure["info"]
        if failure.get("declared"):  # resolve() named this recovery while it was open: already counted
            fid, description = failure["declared"], None
        else:
            description = fix_description(ev.tool, failure["params"], ev.params)
            fid = fix_id(ns, description)
            plan.outcomes.append(
                {
                    "error_id": failure["error_id"],
                    "tool": ev.tool,
                    "pattern": info.pattern,
                    "signature": info.signature,
                    "keys": info.keys,
                    "category": info.category,
                    "template": info.template,
                    "fix_id": fid,
                    "description": description,
                    "source": "observed",
                    "success": True,
                    "at": ev.ts,
                    "session_id": sid,
                }
            )
        recovery = recovery_row(failure["error_id"], sid, ev.tool, fid, description, info)
        plan.recoveries.append(recovery)
        recent.recovered(key, recovery)
        plan.fix_of_event.append((failure["error_id"], fid))
    for failure in latest.values():  # failures not followed by a success stay open
        failure["row"]["open"] = True
    plan.errors = list(rows.values())
    return plan


def open_failure_keys(ns: str, events: Iterable[Prepared]) -> list[dict[str, str]]:
    """(session id, tool) pairs whose open failures a batch needs to know about."""
    seen: dict[tuple[str, str], None] = {}
    for ev in events:
        if ev.message is None and ev.session:
            seen[(node_id(ns, "session", ev.session), ev.tool)] = None
    return [{"session_id": s, "tool": t} for s, t in seen]


def _show(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, default=str) if not isinstance(value, str) else value
    return text if len(text) <= _VALUE_MAX else text[: _VALUE_MAX - 1] + "…"


def _loads(text: str | None) -> dict[str, Any]:
    try:
        value = json.loads(text) if text else {}
    except (TypeError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def _jsonable(params: dict[str, Any]) -> dict[str, Any]:
    # Parameters are stored as JSON (edge property, spool line); anything else becomes its repr.
    try:
        return json.loads(json.dumps(params, default=repr))
    except (TypeError, ValueError) as exc:
        raise ValidationError(f"params: not serialisable ({exc})") from exc

"""Call-graph self-healing: static analysis says which function calls which (``ast``
edges, confidence 1.0); observations of what changed together confirm those edges or
discover new ones (``observation`` edges, 0.6); observation edges that stop being
confirmed decay. The pure functions below state the maths; the Cypher files in
``cypher/callgraph/`` apply the same maths inside the write transaction.

Each write is an operation (:mod:`kgmem.runner`, the ``*_op`` methods): :class:`CallGraph` runs
them on its sync graph store, ``AsyncKGMem`` on its async one.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from kgmem.errors import ValidationError
from kgmem.graph import GraphStore
from kgmem.ids import node_id
from kgmem.runner import Op, SyncIO, Write, synced

log = logging.getLogger(__name__)

FUNCTION_KIND = "function"
MAX_FUNCTIONS_PER_OBSERVATION = 64  # 2016 pairs; more is noise, not evidence


@dataclass(frozen=True)
class CallGraphSettings:
    """Seed 003 constants: smaller boost than knowledge (less signal), gentle decay."""

    confirmation_boost: float = 0.15
    max_confidence: float = 0.95
    new_edge_confidence: float = 0.6
    stale_sessions: int = 10
    stale_decay: float = 0.05
    floor: float = 0.1


@dataclass(frozen=True)
class HealResult:
    """What one observation did: edges confirmed, edges discovered, pairs with an unknown function."""

    confirmed: int
    discovered: int
    unknown: int


def confirm(confidence: float, boost: float = 0.15, max_confidence: float = 0.95) -> float:
    """Diminishing boost for a confirmed edge; an edge above ``max_confidence`` (AST, 1.0) keeps its value."""
    if confidence >= max_confidence:
        return confidence
    return confidence + boost * (max_confidence - confidence)


def decayed(
    confidence: float, sessions_since: int, steps_applied: int = 0, settings: CallGraphSettings = CallGraphSettings()
) -> tuple[float, int]:
    """Confidence and steps after decay, for an observation edge unconfirmed for ``sessions_since`` sessions."""
    due = sessions_since - settings.stale_sessions + 1 if sessions_since >= settings.stale_sessions else 0
    apply = due - steps_applied
    if apply <= 0:
        return confidence, steps_applied
    if confidence <= settings.floor:
        return confidence, due
    return max(settings.floor, confidence - apply * settings.stale_decay), due


def pairs(functions: Iterable[str]) -> list[tuple[str, str]]:
    """Every ordered pair (earlier, later) of distinct functions, in the order given."""
    unique = list(dict.fromkeys(f.strip() for f in functions if f and f.strip()))
    return [(a, b) for i, a in enumerate(unique) for b in unique[i + 1 :]]


class CallGraph:
    """Writes and heals the call graph of one Neo4j database."""

    def __init__(self, graph: GraphStore | None, settings: CallGraphSettings | None = None) -> None:
        self.graph = graph
        self.settings = settings or CallGraphSettings()
        self.io = SyncIO(graph, None, None)

    def add_functions_op(self, ns: str, qualnames: Sequence[str]) -> Op[int]:
        """Create (or touch) Function nodes; returns how many were written."""
        rows = [{"id": node_id(ns, FUNCTION_KIND, q), "qualname": q} for q in _check_names(qualnames)]
        if not rows:
            return 0
        return (yield Write("callgraph/add_functions", dict(ns=ns, now=_now(), rows=rows)))[0]["written"]

    add_functions = synced(add_functions_op)

    def add_calls_op(self, ns: str, calls: Sequence[tuple[str, str]]) -> Op[int]:
        """Record edges found by static analysis (source ``ast``, confidence 1.0), one batch."""
        rows = []
        for i, call in enumerate(calls):
            if not (isinstance(call, (tuple, list)) and len(call) == 2):
                raise ValidationError(f"calls[{i}]: expected a (caller, callee) pair")
            caller, callee = _check_names(call, f"calls[{i}]")
            rows.append(
                {
                    "caller_id": node_id(ns, FUNCTION_KIND, caller),
                    "caller": caller,
                    "callee_id": node_id(ns, FUNCTION_KIND, callee),
                    "callee": callee,
                }
            )
        if not rows:
            return 0
        return (yield Write("callgraph/add_ast_edges", dict(ns=ns, now=_now(), rows=rows)))[0]["written"]

    add_calls = synced(add_calls_op)

    def observe_op(self, ns: str, functions_changed: Sequence[str], session: str | None = None) -> Op[HealResult]:
        """An observation changed these functions together: confirm or discover edges among them."""
        names = _check_names(functions_changed, "functions_changed")
        if len(names) > MAX_FUNCTIONS_PER_OBSERVATION:
            raise ValidationError(
                f"functions_changed: {len(names)} functions; at most {MAX_FUNCTIONS_PER_OBSERVATION} per observation"
            )
        todo = pairs(names)
        if not todo:
            return HealResult(0, 0, 0)
        s = self.settings
        row = (
            yield Write(
                "callgraph/observe",
                dict(
                    ns=ns,
                    now=_now(),
                    session=session,
                    boost=s.confirmation_boost,
                    max_confidence=s.max_confidence,
                    new_confidence=s.new_edge_confidence,
                    pairs=[{"a": node_id(ns, FUNCTION_KIND, a), "b": node_id(ns, FUNCTION_KIND, b)} for a, b in todo],
                ),
            )
        )[0]
        confirmed, discovered = int(row["confirmed"] or 0), int(row["discovered"] or 0)
        result = HealResult(confirmed, discovered, len(todo) - confirmed - discovered)
        if confirmed or discovered:
            log.info("callgraph healed in %s: %s", ns, result)
        return result

    observe = synced(observe_op)

    def decay_op(self, ns: str) -> Op[int]:
        """Decay stale observation edges; returns how many edges were lowered."""
        s = self.settings
        rows = yield Write(
            "callgraph/decay", dict(ns=ns, threshold=s.stale_sessions, step=s.stale_decay, floor=s.floor)
        )
        return int(rows[0]["decayed"]) if rows else 0

    decay = synced(decay_op)


def _check_names(names: Sequence[str], field: str = "qualnames") -> list[str]:
    if isinstance(names, str):
        raise ValidationError(f"{field}: expected a list of qualified names, got a string")
    out = []
    for i, name in enumerate(names):
        if not isinstance(name, str) or not name.strip():
            raise ValidationError(f"{field}[{i}]: must be a non-empty string")
        out.append(name.strip())
    return out


def _now() -> str:
    return datetime.now(UTC).isoformat()

"""The planner: which nodes a scope erases, read from the graph before anything is written.

A plan lists ids per label (never text): the items to erase, the items that only lose a forgotten
session's provenance, and what the erase takes with it (the fixes only erased errors had, the
entities only erased knowledge was about, a correction's knowledge item with its fix). Planning is
reads only, so an unknown target is refused before anything is erased.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from kgmem.concepts.normalise import normalise_key
from kgmem.concepts.types import concept_id
from kgmem.forget.scope import ForgetTargetNotFound, Scope
from kgmem.ids import ns_key
from kgmem.runner import Op, Read

#: The labels a forget erases item by item, in erase order (a session's node goes last: while it
#: exists, a resumed forget can still find what is left of it).
LABELS: tuple[str, ...] = ("Message", "Knowledge", "ErrorPattern", "Fix", "Entity", "Session")
#: Memory labels whose nodes have a vector (label -> Chroma kind).
VECTOR_KINDS: dict[str, str] = {
    "Message": "message",
    "Knowledge": "knowledge",
    "ErrorPattern": "error",
    "Fix": "fix",
    "Entity": "entity",
}


@dataclass
class Plan:
    """What one forget erases (ids per label) and what only loses a session's provenance."""

    ns: str
    scope: Scope
    target: str
    items: dict[str, list[str]] = field(default_factory=lambda: {label: [] for label in LABELS})
    #: session scope: the session's name (its query log and overlays are keyed by it) and what stays
    session_key: str | None = None
    knowledge_kept: list[str] = field(default_factory=list)
    errors_kept: list[str] = field(default_factory=list)
    #: entity scope: the lower-cased name (query-log texts that hold it go too)
    needle: str | None = None
    #: everything: node counts per label
    namespace: dict[str, int] = field(default_factory=dict)

    def add(self, label: str, ids: Iterable[str]) -> None:
        have = set(self.items[label])
        for i in ids:
            if i is not None and i not in have:
                have.add(i)
                self.items[label].append(i)

    @property
    def ids(self) -> list[str]:
        """Every item id of the plan."""
        return [i for label in LABELS for i in self.items[label]]

    @property
    def sessions(self) -> list[str]:
        """Names of the sessions whose retrieval state goes."""
        return [self.session_key] if self.session_key else []

    def counts(self) -> dict[str, int]:
        return {label: len(ids) for label, ids in self.items.items() if ids}


#: How many ids one read of a namespace's items (forget everything) returns.
PAGE = 10_000


def plan_op(ns: str, scope: Scope, page: int = PAGE) -> Op[Plan]:
    """Plan ``scope`` in ``ns`` (reads only; a whole namespace's ids ``page`` per read).

    Raises:
        ForgetTargetNotFound: the id, session or entity is not in ``ns``.
    """
    plan = Plan(ns, scope, scope.target(ns))
    if scope.kind == "id":
        yield from _plan_id(plan)
    elif scope.kind == "session":
        yield from _plan_session(plan, plan.target)
    elif scope.kind == "entity":
        yield from _plan_entity(plan, str(scope.value))
    else:
        yield from _plan_everything(plan, page)
    if scope.kind != "everything":
        yield from _close(plan)
    return plan


def _plan_id(plan: Plan) -> Op[None]:
    rows = yield Read("forget/plan_ids", {"ns": plan.ns, "ids": [plan.target]})
    if not rows:
        raise ForgetTargetNotFound(
            f"id: no turn, knowledge item, error pattern, fix or entity {plan.target!r} in namespace {plan.ns!r}"
        )
    label = rows[0]["label"]
    if label == "Entity":  # an entity goes with its triples and the knowledge about it
        yield from _entity_rows(plan, [plan.target], [], None)
    else:
        plan.add(label, [plan.target])


def _plan_session(plan: Plan, session_id: str, *, missing_ok: bool = False) -> Op[None]:
    rows = yield Read("forget/plan_session", {"ns": plan.ns, "session_id": session_id})
    if not rows:
        if missing_ok:
            return
        raise ForgetTargetNotFound(f"session: no session {plan.scope.value!r} in namespace {plan.ns!r}")
    row = rows[0]
    plan.session_key = row["key"]
    plan.add("Message", row["messages"])
    plan.add("Knowledge", row["knowledge"])
    plan.add("ErrorPattern", row["errors"])
    plan.add("Fix", row["fixes"])
    plan.add("Session", [session_id])
    plan.knowledge_kept = list(row["knowledge_kept"])
    plan.errors_kept = list(row["errors_kept"])


def lucene_phrase(ns: str, name: str) -> str:
    """A full-text query for ``name`` as a phrase, in namespace ``ns`` only (kgmem_fulltext's ns_key)."""
    quoted = name.replace("\\", "\\\\").replace('"', '\\"')
    return f'+ns_key:"{ns_key(ns)}" +"{quoted}"'


def _plan_entity(plan: Plan, name: str) -> Op[None]:
    key = normalise_key(name)
    concepts = [concept_id(plan.ns, key)] if key else []
    found = yield from _entity_rows(plan, [plan.target], concepts, name)
    if not found:
        raise ForgetTargetNotFound(f"entity: nothing in namespace {plan.ns!r} names or mentions {name!r}")
    plan.needle = name.strip().lower()


def _entity_rows(plan: Plan, entity_ids: list[str], concept_ids: list[str], name: str | None) -> Op[bool]:
    rows = yield Read(
        "forget/plan_entity",
        {
            "ns": plan.ns,
            "entity_ids": entity_ids,
            "concept_ids": concept_ids,
            "phrase": lucene_phrase(plan.ns, name) if name else None,
            "needle": name.strip().lower() if name else None,
        },
    )
    row = rows[0]
    plan.add("Entity", row["entities"])
    for item in row["items"]:
        if item["label"] in plan.items:
            plan.add(item["label"], [item["id"]])
    return bool(row["entities"] or row["concepts"] or row["items"])


def _plan_everything(plan: Plan, page: int) -> Op[None]:
    rows = yield Read("forget/plan_everything", {"ns": plan.ns})
    plan.namespace = {r["label"]: int(r["n"]) for r in rows}
    for label in LABELS:
        after = ""
        while True:
            got = yield Read("forget/namespace_items", {"ns": plan.ns, "label": label, "after": after, "limit": page})
            ids = got[0]["ids"] if got else []
            plan.add(label, ids)
            if len(ids) < page:
                break
            after = ids[-1]


def _close(plan: Plan) -> Op[None]:
    """Add what erasing the plan's items takes with it, until nothing more is added."""
    for _ in range(3):
        before = len(plan.ids)
        rows = yield Read(
            "forget/close",
            {
                "ns": plan.ns,
                "knowledge": plan.items["Knowledge"],
                "errors": plan.items["ErrorPattern"],
                "fixes": plan.items["Fix"],
            },
        )
        row = rows[0]
        plan.add("Fix", row["fixes"])
        plan.add("Entity", row["entities"])
        plan.add("Knowledge", row["corrections"])
        if len(plan.ids) == before:
            return


__all__ = ["LABELS", "VECTOR_KINDS", "Plan", "lucene_phrase", "plan_op"]

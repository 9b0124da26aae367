"""``forget``: erase what a scope names from every store, leave content-free tombstones so nothing
recorded before brings it back, and record who forgot what (without content).

One call is one operation (:mod:`kgmem.runner`), run by :class:`~kgmem.KGMem` on the sync stores
and by :class:`~kgmem.AsyncKGMem` on the async ones:

1. a forget an earlier call left unfinished (a killed process, a lost Neo4j) is resumed first;
2. the scope is planned (reads only: an unknown target is refused before anything is written);
3. a dry run returns the plan's counts per store; a real run records the audit entry (state
   ``running``), marks a forgotten session (a writer in another process holding it commits first
   and the scope is planned again; a later one writes nothing of it), writes the tombstones, erases
   in batches (:mod:`kgmem.forget.erase`), removes the scope's lines from the spool files, drops
   queued analysis windows, sweeps once more for what a concurrent writer added meanwhile, and
   marks the audit entry ``done`` with the counts.

Every step is idempotent, so a resumed forget repeats them and never leaves half an item: the
tombstones list every id it erases, a node and its vector go together on resume.
"""

from __future__ import annotations

import getpass
import json
import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kgmem.config import ForgetSettings
from kgmem.forget.erase import Counts, count_op, erase_op
from kgmem.forget.plan import LABELS, Plan, _plan_session, plan_op
from kgmem.forget.scope import ForgetTargetNotFound, Scope
from kgmem.forget.spool_files import matcher, purge
from kgmem.runner import LocalIO, Op, Read, Write
from kgmem.tombstones import EVERYTHING, name_id, now_ms

log = logging.getLogger(__name__)

DAY_MS = 86_400_000
PRUNE_LIMIT = 10_000  # tombstones past retention removed per forget call (the rest on the next)


@dataclass(frozen=True)
class ForgetResult:
    """What a forget erased (``dry_run``: would erase), counted per store.

    ``items``: the ids per label (a dry run lists them; a real run leaves them out: they are gone).
    ``resumed``: ids of earlier, interrupted forgets this call finished first.
    """

    scope: str
    target: str
    dry_run: bool
    counts: dict[str, dict[str, int]]
    forget_id: str | None = None
    items: dict[str, list[str]] = field(default_factory=dict)
    resumed: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return sum(sum(c.values()) for c in self.counts.values())

    def to_dict(self) -> dict[str, Any]:
        return {
            "scope": self.scope,
            "target": self.target,
            "dry_run": self.dry_run,
            "counts": self.counts,
            "forget_id": self.forget_id,
            "items": self.items,
            "resumed": self.resumed,
        }


@dataclass
class Hooks:
    """What a forget reaches in the calling process besides the stores: its queued analysis windows
    (``drop_windows(ns, session or None for all) -> count``), for ``everything``, the namespace's
    vector collections (``drop_collections(ns) -> vectors left in them``), and its checks where events
    enter (``forgot_name(ns)``: a name tombstone was written)."""

    drop_windows: Callable[[str, str | None, str | None], int] | None = None
    drop_collections: Callable[[str], int] | None = None
    #: told when an entity's name is tombstoned in a namespace (the client's NameTombstones)
    forgot_name: Callable[[str], None] | None = None


def default_by(surface: str) -> str:
    """Who asks: the surface and the operating-system user."""
    try:
        user = getpass.getuser()
    except Exception:  # noqa: BLE001 - no user name in a bare container
        user = "unknown"
    return f"{surface}:{user}"


class Forgetter:
    """Runs forgets for one client (its spool directory and in-process queues)."""

    def __init__(self, settings: ForgetSettings, spool_dir: Path, hooks: Hooks | None = None) -> None:
        self.settings = settings
        self.spool_dir = Path(spool_dir)
        self.hooks = hooks or Hooks()
        self._schema = False

    def forget_op(self, ns: str, scope: Scope, *, dry_run: bool = False, by: str = "python") -> Op[ForgetResult]:
        """Forget ``scope`` in ``ns`` (see the module docstring)."""
        yield from self._ensure_schema()
        resumed = [] if dry_run else (yield from self.resume_op(ns))
        plan = yield from plan_op(ns, scope, self.settings.batch_size)
        if dry_run:
            counts = yield from count_op(plan, self.settings.batch_size, self.settings.vector_batch_size)
            counts.spool["events"] = yield LocalIO(self._purge, (plan, True))
            items = {label: ids for label, ids in plan.items.items() if ids}
            return ForgetResult(scope.kind, plan.target, True, counts.as_dict(), items=items, resumed=resumed)
        forget_id = uuid.uuid4().hex
        yield Write(
            "forget/audit_start",
            {
                "id": forget_id,
                "ns": ns,
                "scope": scope.kind,
                "target": plan.target,
                "by": by,
                "now": _now(),
                "plan": json.dumps(plan.counts()),
            },
        )
        if scope.kind == "session":  # a writer holding the session commits first; later ones write nothing
            yield Write("forget/mark_session", {"ns": ns, "session_id": plan.target, "forget": forget_id})
            plan = yield from plan_op(
                ns, scope, self.settings.batch_size
            )  # ... and what the one before wrote is in the plan
        yield from self._tombstones(plan, forget_id)
        counts = yield from self._erase(plan)
        yield from self._sweep(plan, counts, forget_id)
        yield Write("forget/audit_finish", {"id": forget_id, "now": _now(), "counts": json.dumps(counts.as_dict())})
        log.info("forget %s (%s) in %s: %s", forget_id, scope.kind, ns, counts.as_dict())
        return ForgetResult(scope.kind, plan.target, False, counts.as_dict(), forget_id, resumed=resumed)

    # -- steps ---------------------------------------------------------------------------------
    def _ensure_schema(self) -> Op[None]:
        if not self._schema:
            yield Write("forget/ensure_schema")
            yield Write("forget/ensure_audit_schema")
            self._schema = True

    def _tombstones(self, plan: Plan, forget_id: str, *, scope: bool = True) -> Op[None]:
        """The plan's items' tombstones (``scope``: and the scope's own), all committed before any of
        their vectors is deleted: a writer that upserts a vector after the forget's delete then finds
        the id tombstoned when it checks (:func:`kgmem.tombstones.drop_forgotten_op`) and deletes it."""
        rows = [{"id": i, "label": label} for label in LABELS for i in plan.items[label]]
        named = {r["id"] for r in rows}
        if scope and plan.target not in named:  # the scope's own target: an entity name, the namespace
            rows.append({"id": plan.target, "label": "Namespace" if plan.target == EVERYTHING else plan.scope.kind})
        name = name_id(plan.ns, plan.needle) if plan.needle and scope else None
        if name is not None:  # the name's hash: a later-landing text naming the entity is recognised
            rows.append({"id": name, "label": "entity_name"})
        at = now_ms()
        expires = at + int(self.settings.tombstone_days * DAY_MS)
        batch = self.settings.batch_size
        for start in range(0, len(rows), batch):
            yield Write(
                "forget/tombstone",
                {
                    "ns": plan.ns,
                    "forget": forget_id,
                    "scope": plan.scope.kind,
                    "at_ms": at,
                    "expires_ms": expires,
                    "rows": rows[start : start + batch],
                },
            )
        if name is not None and self.hooks.forgot_name is not None:
            self.hooks.forgot_name(plan.ns)
        if scope:
            yield Write("forget/prune_tombstones", {"now_ms": at, "limit": PRUNE_LIMIT})

    def _erase(self, plan: Plan) -> Op[Counts]:
        counts = yield from erase_op(plan, self.settings.batch_size, self.settings.vector_batch_size)
        counts.spool["events"] += yield LocalIO(self._purge, (plan, False))
        if self.hooks.drop_windows is not None and plan.scope.kind != "id":
            # a session's windows; an entity's: the windows of any session naming it; everything: all
            session = plan.session_key if plan.scope.kind == "session" else None
            mentions = plan.needle if plan.scope.kind == "entity" else None
            if plan.scope.kind != "entity" or mentions:
                counts.analysis["windows"] += yield LocalIO(self.hooks.drop_windows, (plan.ns, session, mentions))
        if plan.scope.kind == "everything" and self.hooks.drop_collections is not None:
            counts.vectors["unlinked"] += yield LocalIO(self.hooks.drop_collections, (plan.ns,))
        return counts

    def _sweep(self, plan: Plan, counts: Counts, forget_id: str) -> Op[None]:
        """Plan the scope again and erase what a writer that raced the forget added (its events were
        recorded before the tombstones were, so no guard stopped them): tombstoned first, as the
        plan's items were, so its vectors upserted after this erase are deleted by their writer."""
        if plan.scope.kind == "id":
            return
        try:
            again = yield from plan_op(plan.ns, plan.scope, self.settings.batch_size)
        except ForgetTargetNotFound:
            return
        if again.ids:
            yield from self._tombstones(again, forget_id, scope=False)
        if again.ids or plan.scope.kind == "everything":
            counts.add((yield from erase_op(again, self.settings.batch_size, self.settings.vector_batch_size)))

    def _purge(self, plan: Plan, dry_run: bool) -> int:
        ids = set(plan.ids)
        matches = matcher(plan.ns, plan.scope.kind, plan.session_key, ids, plan.needle)
        return purge(self.spool_dir, matches, plan.needle, dry_run=dry_run)

    def resume_op(self, ns: str) -> Op[list[str]]:
        """Finish the forgets of ``ns`` an earlier call left running: erase every id they tombstoned
        (a node and its vector; what is already gone is skipped), then their scope's rest."""
        running = yield Read("forget/audit_running", {"ns": ns})
        done = []
        for entry in running:
            scope = Scope(entry["scope"], None)
            plan = Plan(ns, scope, entry["target"])
            yield from self._tombstoned_by(plan, entry["id"])
            if scope.kind == "session":
                yield from _plan_session(plan, entry["target"], missing_ok=True)
            counts = yield from self._erase(plan)
            yield Write(
                "forget/audit_finish", {"id": entry["id"], "now": _now(), "counts": json.dumps(counts.as_dict())}
            )
            log.warning("forget %s had been interrupted; resumed and finished", entry["id"])
            done.append(entry["id"])
        return done

    def _tombstoned_by(self, plan: Plan, forget_id: str) -> Op[None]:
        """Add to ``plan`` the items forget ``forget_id`` tombstoned (read a batch at a time)."""
        after, page = "", self.settings.batch_size
        while True:
            rows = yield Read(
                "forget/tombstones_of", {"ns": plan.ns, "forget": forget_id, "after": after, "limit": page}
            )
            for row in rows:
                if row["label"] in plan.items:
                    plan.add(row["label"], [row["id"]])
            if len(rows) < page:
                return
            after = rows[-1]["id"]


def _now() -> str:
    return datetime.now(UTC).isoformat()

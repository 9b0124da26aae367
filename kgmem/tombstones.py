"""Tombstones, read where events enter the graph: the checks that keep a forgotten item from coming
back (docs/forgetting.md). A forget (:mod:`kgmem.forget`) writes a content-free tombstone for every
id it erases and one for the session, entity or namespace it names, with the time of the forget.
An event recorded *before* that time must not bring the content back; one recorded after is new data.

This module depends on the stores' request types only, so the writers (analysis, conversation)
can call it without depending on :mod:`kgmem.forget`:

* :func:`tombstoned_op` — which of some ids are tombstoned (the knowledge store drops extracted
  items, and triples naming entities, that a forget erased);
* :func:`guard_job` — an analysis job whose window began before a forget of its session or
  namespace, or of an entity its window or its knowledge names, writes no knowledge (a queued
  window, a late LLM answer);
* :func:`name_id` / :func:`mentioned_name_ids` — an entity forget's tombstone for the *name*: the
  hash of its words, matched against the hashes of a text's word runs (so the tombstone holds no
  name, and a text naming the entity is still recognised);
* :func:`drop_forgotten_op` — the check after a writer's vector upsert: a writer whose graph write
  committed before a forget marked its session may upsert its vectors (the text is the Chroma
  document) after the forget deleted them; the forget commits its tombstones before any vector delete,
  so the writer, reading the tombstones after its upsert, finds the ids and deletes those vectors;
* :func:`screened_op` — the check of an analysis job or a spool batch: ids and the texts' name hashes
  in one read, which also says whether the namespace has any name tombstone at all. Hashing every
  word run costs ~1 ms per turn (and a read ~20x longer), so a client skips it in a namespace that
  had none at its last check (:class:`NameTombstones`); the same read tells it when one appeared
  since — another process's forget — and then the texts are hashed and checked after all.

A turn whose message id is tombstoned is refused inside ``conversation/record_turns`` itself, and
spooled events are screened at replay (:func:`kgmem.forget.guard.spool_filter_op`).
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from kgmem.graph.keys import bounded_key
from kgmem.ids import node_id
from kgmem.runner import Op, Read, VectorDelete, Write

log = logging.getLogger(__name__)

#: The tombstone id of a whole namespace (forget everything).
EVERYTHING = "*"
#: The analysis write a forgotten session's late job must not make.
KNOWLEDGE_WRITE = "analysis/apply_knowledge"
#: The longest name (in words) a text is checked for: word runs up to this long are hashed.
NAME_WORDS = 6
_WORD = re.compile(r"\w+")


def now_ms() -> int:
    return int(time.time() * 1000)


def session_node_id(ns: str, session: str) -> str:
    """The ``Session`` node id of a session name (as the turn store writes it)."""
    return node_id(ns, "session", bounded_key(session))


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def name_id(ns: str, name: str) -> str | None:
    """The tombstone id of an entity's name: a hash of its lower-cased words (None: no words)."""
    words = _words(name)
    return node_id(ns, "forgotten-name", " ".join(words)) if words else None


def mentioned_name_ids(ns: str, texts: Iterable[str | None]) -> set[str]:
    """The :func:`name_id` of every run of up to :data:`NAME_WORDS` words in ``texts``: a text names a
    forgotten entity when one of them is tombstoned."""
    out: set[str] = set()
    for text in texts:
        if not isinstance(text, str):
            continue
        words = _words(text)
        runs = {" ".join(words[i : i + n]) for n in range(1, NAME_WORDS + 1) for i in range(len(words) - n + 1)}
        out.update(node_id(ns, "forgotten-name", run) for run in runs)
    return out


def tombstoned_op(ns: str, ids: Iterable[str]) -> Op[dict[str, int]]:
    """The tombstoned ones among ``ids``: id -> when it was forgotten (epoch ms)."""
    wanted = sorted({i for i in ids if i})
    if not wanted:
        return {}
    rows = yield Read("forget/tombstoned", {"ns": ns, "ids": wanted})
    return {r["id"]: int(r["at_ms"] or 0) for r in rows}


def drop_forgotten_op(ns: str, written: Mapping[str, Sequence[str]], gone: Iterable[str] | None = None) -> Op[int]:
    """After a write's vector upserts (``written``: kind -> ids): delete the vectors of the ids a forget
    tombstoned meanwhile (``gone``: those ids, read with the write that follows the upsert; None: one
    read here). Returns how many were deleted. Sound because a forget commits its tombstones before it
    deletes vectors: either its delete follows this upsert, or this check follows its tombstones."""
    wanted = {i for ids in written.values() for i in ids}
    if not wanted:
        return 0
    dead = wanted.intersection((yield from tombstoned_op(ns, wanted)) if gone is None else gone)
    for kind, ids in written.items():
        doomed = [i for i in ids if i in dead]
        if doomed:
            yield VectorDelete(ns, kind, doomed)
    if dead:
        log.info("%d vector(s) of items forgotten while they were written deleted in %s", len(dead), ns)
    return len(dead)


def written_gone(rows: Sequence[Mapping[str, Any]] | None) -> list[str]:
    """The ``gone`` ids a ``*vectors_written`` write returned (none: nothing tombstoned)."""
    return list(rows[0].get("gone") or []) if rows else []


class NameTombstones:
    """One client's memory of which namespaces had an entity-name tombstone at their last check.

    Only a hint: every check reads the answer again in its own round trip (:func:`screened_op`), so a
    stale "none" — another process forgot an entity since — costs one more read, never a miss. A forget
    in this client notes its name tombstone at once (:meth:`forgot_name`).
    """

    def __init__(self) -> None:
        self._has: dict[str, bool] = {}
        self._lock = threading.Lock()

    def none_known(self, ns: str) -> bool:
        """True when ``ns`` had no name tombstone at the last check."""
        with self._lock:
            return self._has.get(ns) is False

    def note(self, ns: str, has: bool) -> None:
        with self._lock:
            self._has[ns] = has

    def forgot_name(self, ns: str) -> None:
        """A forget of this client wrote a name tombstone in ``ns``."""
        self.note(ns, True)


def screened_op(
    ns: str, ids: Iterable[str], texts: Sequence[Sequence[str | None]], names: NameTombstones | None = None
) -> Op[tuple[dict[str, int], list[set[str]]]]:
    """The tombstoned ones among ``ids`` and the name ids of each group of ``texts`` (id -> when it was
    forgotten), and each group's name ids. One read; the texts are not hashed when ``names`` knows the
    namespace had no name tombstone — unless the read says it has one now: then they are, and read."""
    base = {i for i in ids if i}
    skip = names is not None and names.none_known(ns)
    groups = [set() if skip else mentioned_name_ids(ns, group) for group in texts]
    gone, has = yield from _screen(ns, base.union(*groups))
    if names is not None:
        names.note(ns, has)
    if skip and has:  # a name tombstone appeared since the last check (another process's forget)
        groups = [mentioned_name_ids(ns, group) for group in texts]
        gone, _ = yield from _screen(ns, base.union(*groups))
    return gone, groups


def _screen(ns: str, ids: set[str]) -> Op[tuple[dict[str, int], bool]]:
    rows = yield Read("forget/screen", {"ns": ns, "ids": sorted(ids)})
    if not rows:
        return {}, False
    return {g["id"]: int(g["at_ms"] or 0) for g in rows[0]["gone"]}, bool(rows[0]["names"])


def guard_job(
    op: Op[Any],
    ns: str,
    session: str,
    since_ms: int | None,
    texts: Iterable[str | None] = (),
    names: NameTombstones | None = None,
) -> Op[Any]:
    """Run an analysis job's operation ``op``; its knowledge write is skipped (answered as if every row
    had vanished) when its session or namespace, or an entity its window (``texts``) or the written
    knowledge names, was forgotten after the job's window began (``since_ms``) — the check runs just
    before the write, so a late result is caught too. ``names``: the client's :class:`NameTombstones`."""
    window = list(texts)
    try:
        request = next(op)
        while True:
            if since_ms is not None and isinstance(request, Write) and request.name == KNOWLEDGE_WRITE:
                written = [r.get("content") for r in request.params.get("rows") or [] if isinstance(r, dict)]
                base = [EVERYTHING, session_node_id(ns, session)]
                gone, _ = yield from screened_op(ns, base, [[*window, *written]], names)
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

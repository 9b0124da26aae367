"""The learning engine: tool results in, error patterns, fixes and their confidence in the graph.

Per event batch the work is: plan (pure, :mod:`kgmem.learning.plan`) → one Neo4j
transaction (``learning/apply_events``: occurrences, observed fixes, confidence and
its propagation, closed failures) → for patterns and fixes seen for the first time
only: one embedding batch, Chroma upsert, neighbour search and ``SIMILAR_TO`` links
(``learning/link_similar``). A repeated error costs one round trip and no model call.

A repeat of a pattern already in the graph (and indexed) is *deferred* by default
(``learning.defer_flush_ms``, :mod:`kgmem.learning.deferred`): fsync'ed to a deferred spool
segment and answered from one read; the occurrences are written within ``defer_flush_ms``,
before this engine's next write, and at :meth:`LearningEngine.flush` / :meth:`~LearningEngine.close`.

If Neo4j is unreachable (after the retries in :class:`~kgmem.graph.GraphStore`),
``tool_result`` does not raise into the agent's tool loop: the event goes to the
append-only spool and is replayed exactly once when Neo4j answers again. With
``learning.strict = true`` the error is raised instead.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import neo4j.exceptions
import numpy as np

from kgmem import kinds
from kgmem.concepts import ConceptExtractor, concept_rows
from kgmem.config import LearningSettings
from kgmem.errors import AlreadyApplied, BackendUnavailable, ErrorNotFound, ValidationError
from kgmem.graph import GraphStore
from kgmem.graph.keys import bounded_key
from kgmem.ids import node_id
from kgmem.learning import matching
from kgmem.learning.adjudication import Borderline, MatchAdjudicator
from kgmem.learning.confidence import ConfidenceRules, failed_fixes, rank_fixes
from kgmem.learning.deferred import DeferredSegment, Flusher, KnownPatterns, indexed_ids
from kgmem.learning.identity import fix_proves_identity, same_error
from kgmem.learning.judgement import judgement_key, new_occurrence, occurrence_of
from kgmem.learning.matching import ErrorText
from kgmem.learning.models import BatchResult, FixOutcome, Observation, ToolEvent, success_observation
from kgmem.learning.plan import (
    ERROR_KIND,
    FIX_KIND,
    ErrorDescriber,
    Prepared,
    fix_id,
    now_iso,
    open_failure_keys,
    plan_batch,
    prepare,
)
from kgmem.learning.recovery import plan_resolve
from kgmem.learning.similarity import decode_keys
from kgmem.retrieval.text import lucene_query
from kgmem.runner import (
    Embed,
    LocalIO,
    Op,
    Ping,
    Read,
    SyncIO,
    VectorCount,
    VectorDelete,
    VectorGet,
    VectorQueryMany,
    VectorUpsert,
    Write,
    run,
    synced,
)
from kgmem.spool import LEARNING, Cursor, Spool, SpoolReplayer, _groups
from kgmem.tombstones import drop_forgotten_op
from kgmem.vectors import Embedder, VectorStore

log = logging.getLogger(__name__)

_UNREACHABLE = (BackendUnavailable, neo4j.exceptions.DriverError)
# Before writing after a quiet spell, ping Neo4j (~1 ms; fails at once when the port is
# closed). Without it the first write to a dead server waits out the driver's own retry
# loop (max_transaction_retry_time, 30 s by default) times GraphStore's attempts.
_PROBE_AFTER_S = 1.0
_ID_CHARS = frozenset("0123456789abcdef")
_FULLTEXT_INDEX = "kgmem_fulltext"  # cypher/schema.cypher
_BM25_TERMS = 40  # words of a template sent to Lucene: the core's head names the error


class LearningEngine:
    """Records tool outcomes and hands back known fixes. Graph first (one transaction), then Chroma.

    Args:
        graph, vectors, embedder: the shared backends (owned by the caller).
        settings: the ``[learning]`` settings.
        spool_dir: where unreachable-backend events are spooled (``settings.spool_dir``);
            None disables spooling (every backend error raises).
        replayer: an existing spool replayer to use instead of one on ``spool_dir`` (``AsyncKGMem``
            passes one whose offline window is its async graph store's).
        defer: allow deferred repeats (also needs ``defer_flush_ms > 0``, a spool, ``strict`` off
            and sync stores: an engine whose operations run on ``AsyncKGMem`` never defers).
    """

    def __init__(
        self,
        graph: GraphStore | None,
        vectors: VectorStore | None,
        embedder: Embedder | None,
        settings: LearningSettings,
        spool_dir: Path | None = None,
        *,
        replayer: SpoolReplayer | None = None,
        defer: bool = True,
        adjudicator: MatchAdjudicator | None = None,
        concepts: ConceptExtractor | None = None,
    ) -> None:
        # The *_op methods are operations (kgmem.runner): AsyncKGMem runs them on its async stores,
        # the sync methods run them here on ``io`` — spooling and its replay included.
        self.graph = graph
        self.vectors = vectors
        self.embedder = embedder
        self.io = SyncIO(graph, vectors, embedder)
        self.settings = settings
        self.rules = ConfidenceRules.from_settings(settings)
        self.describe = ErrorDescriber(error_max_chars=settings.error_max_chars)
        # With an LLM configured, the matching model's fuzzy links and close misses are its to decide
        # (adjudication.py).
        self.adjudicator = adjudicator
        # Error patterns and fix descriptions MENTION their concepts (kgmem/concepts), written in the
        # same apply_events transaction; None writes none.
        self.concepts = concepts
        # One replayer per client: turns and manual knowledge register their appliers on it too.
        if replayer is None and spool_dir is not None:
            replayer = SpoolReplayer(Spool(spool_dir), graph, io=self.io)
        self.replayer = replayer
        self.spool = replayer.spool if replayer is not None else None
        if self.replayer is not None:
            self.replayer.register(LEARNING, self._replay_run, transactional=True)
        self._offline_until = 0.0
        self._last_ok = float("-inf")
        # Deferred repeats: patterns known to be in the graph with their vector, and the segment.
        self._known = KnownPatterns()
        self._deferred: DeferredSegment | None = None
        self._flusher: Flusher | None = None
        self._flusher_lock = threading.Lock()
        self.deferred_total = 0  # repeats answered from the deferred path (benchmarks, tests)
        if (
            defer
            and settings.defer_flush_ms > 0
            and not settings.strict
            and self.replayer is not None
            and self.replayer.io is not None
        ):
            self._deferred = DeferredSegment(self.replayer.spool.directory)
            self.replayer.spool.companions.append(self._deferred.spool)

    # -- events ---------------------------------------------------------------------
    def tool_result_op(
        self,
        ns: str,
        tool: str,
        params: Mapping[str, Any] | None = None,
        *,
        error: str | BaseException | None = None,
        session: str | None = None,
        ts: str | None = None,
    ) -> Op[Observation]:
        """Record one tool outcome; return its :class:`Observation` (on error with the ranked fixes;
        on success ``ok=True`` with the recovery it completed or the fix it confirmed, if any)."""
        event = prepare(tool, params, error, session, ts, self.settings.error_max_chars)
        if event.message is None and event.session is None:
            return success_observation(event)  # a success outside any session teaches nothing: no round trip
        observation = yield from self._record(ns, event)
        if observation.ok:
            return observation
        # Made here, on the client, on every path (written, deferred, spooled): no round trip.
        return dataclasses.replace(observation, occurrence=new_occurrence())

    tool_result = synced(tool_result_op)

    def _record(self, ns: str, event: Prepared) -> Op[Observation]:
        """Write (or defer, or spool) one prepared event; its :class:`Observation`."""
        if event.message is not None and self._deferred is not None:
            deferred = yield from self._defer(ns, event)
            if deferred is not None:
                return deferred
        try:
            yield from self._check_online()
            yield from self._replay_if_due()
            yield from self._flush_deferred()  # this write must come after the occurrences before it
            errors, _, plan = yield from self._apply(ns, [event], want_similar=True)
        except _UNREACHABLE as exc:
            return (yield from self._spool_or_raise(ns, [event], exc))[0]
        if event.message is None:
            return success_observation(event, plan.fix_of_event[0] if plan is not None else None)
        if not errors:  # its session is being forgotten: nothing of it was written
            info = self.describe(ns, event.tool, event.message, event.exc_types)
            return Observation(info.id, event.tool, info.category, info.pattern, 0, False, (), session=event.session)
        return self._observation(errors[0], event.session)

    def tool_results_op(
        self,
        ns: str,
        events: Iterable[ToolEvent | Mapping[str, Any]],
        *,
        index: bool = True,
        marks: Sequence[str] = (),
        spool: bool = True,
    ) -> Op[BatchResult]:
        """Record many outcomes in order, in one transaction (bulk / backfill).

        With ``index=False`` new patterns are written to the graph only (``vector_pending``):
        no embeddings, no ``SIMILAR_TO`` links now — they are made on each pattern's next
        occurrence (or by a reindex). For the fastest backfill.

        ``marks`` (``kgmem ingest``): ingest keys written in the same transaction as the events;
        if one already exists nothing is written and :class:`AlreadyApplied` is raised.
        ``spool=False`` raises :class:`BackendUnavailable` instead of spooling.
        """
        prepared = [_prepare_any(e, i, self.settings.error_max_chars) for i, e in enumerate(events)]
        if not prepared:
            return BatchResult(0, 0, 0, 0, 0)
        n_err = sum(1 for p in prepared if p.message is not None)
        try:
            yield from self._check_online()
            yield from self._replay_if_due()
            yield from self._flush_deferred()
            errors, resolved, _ = yield from self._apply(ns, prepared, index=index, marks=list(marks))
        except _UNREACHABLE as exc:
            if not spool:
                raise exc if isinstance(exc, BackendUnavailable) else BackendUnavailable(str(exc)) from exc
            yield from self._spool_or_raise(ns, prepared, exc)
            return BatchResult(len(prepared), n_err, len(prepared) - n_err, 0, 0, spooled=len(prepared))
        new = len({row["id"] for row in errors if row["vector_pending"]})  # first seen (or vector not yet written)
        return BatchResult(len(prepared), n_err, len(prepared) - n_err, new, len(resolved))

    tool_results = synced(tool_results_op)

    def resolve_op(
        self,
        ns: str,
        error: Observation | str,
        fix: str,
        success: bool = True,
        *,
        tool: str | None = None,
        source: str = "explicit",
        session: str | None = None,
        recovery: bool = True,
        occurrence: str | None = None,
    ) -> Op[FixOutcome]:
        """Record that ``fix`` was applied to ``error`` and worked (or not).

        One judgement per (error occurrence, fix): with an occurrence (``occurrence``, else the
        Observation's) a repeat of this fix on it — a retried call, from any process — is a no-op
        returning the edge as it stands (``FixOutcome.counted`` false); the first outcome stands,
        a repeat with the opposite ``success`` changes nothing either. An error id or message
        without ``occurrence`` counts each time.

        ``error`` is an :class:`Observation`, an error id, or an error message (then
        ``tool`` is required). With a session (the Observation's, or ``session``) one
        recovery stays one Fix (:mod:`kgmem.learning.recovery`): a recovery already observed
        is confirmed and named instead of counted twice. ``recovery=False`` records the outcome
        on its own (a user correction is knowledge of its own, not the name of the agent's
        recovery). Raises :class:`BackendUnavailable` if Neo4j is down.
        """
        if not isinstance(fix, str) or not fix.strip():
            raise ValidationError("fix: must be a non-empty string")
        if not isinstance(success, bool):
            raise ValidationError("success: must be true or false")
        occurrence = occurrence_of(error, occurrence)
        if isinstance(error, Observation) and session is None and recovery:
            session = error.session
        yield from self._flush_deferred()  # the recovery state read below must see every occurrence
        info = yield from self._error_info(ns, error, tool)
        description = fix.strip()
        outcome = {
            "error_id": info["id"],
            "tool": info["tool"],
            "pattern": info["pattern"],
            "signature": info["signature"],
            "keys": info["keys"],
            "category": info["category"],
            "template": info.get("template") or "",
            "fix_id": fix_id(ns, description),
            "description": description,
            "source": source,
            "success": success,
            "at": now_iso(),
        }
        state = yield from self._recovery_state(ns, info["id"], session)
        outcomes, retracts, recoveries = plan_resolve(outcome, *state)
        params = yield from self._params(ns, [], outcomes, [], retracts=retracts, recoveries=recoveries)
        if occurrence is not None:
            params["judgements"] = [judgement_key(ns, occurrence, info["id"], outcome["fix_id"])]
        rows = yield Write("learning/apply_events", params)
        if not rows:  # a judgement already counted: nothing was written
            return (yield from self._current_outcome(ns, info["id"], outcome["fix_id"]))
        resolved = rows[0]["resolved"]
        if not resolved:  # the error pattern is being forgotten, or was: the outcome was not written
            raise ErrorNotFound(f"error: error pattern {info['id']!r} in namespace {ns!r} is forgotten")
        try:
            yield from self._drop_fix_vectors(ns, rows[0].get("dropped_fixes") or [])
            yield from self._index(ns, [], resolved, [])
        except Exception as exc:  # noqa: BLE001 - committed; raising would invite a double-counting retry
            if self.settings.strict:
                raise
            log.warning("vector indexing of a new fix failed (repaired later): %s", exc)
        return _fix_outcome(resolved[0], int(resolved[0]["propagated"]))

    resolve = synced(resolve_op)

    def _current_outcome(self, ns: str, error_id: str, fix: str) -> Op[FixOutcome]:
        """The error→fix edge as it stands (the answer to a repeated judgement)."""
        rows = yield Read("learning/fix_outcome", {"ns": ns, "error_id": error_id, "fix_id": fix})
        if not rows:  # the first judgement's edge was removed since (a renamed recovery): nothing to count
            raise ErrorNotFound(
                f"fix: {fix!r} is no longer recorded on error {error_id!r}; this outcome was already counted"
            )
        return _fix_outcome(rows[0], 0, counted=False)

    def _recovery_state(
        self, ns: str, error_id: str, session: str | None
    ) -> Op[tuple[dict[str, Any] | None, str | None]]:
        """The IN_SESSION recovery state of ``error_id`` in ``session`` (None, None without a session)."""
        if session is None:
            return None, None
        if not isinstance(session, str) or not session.strip():
            raise ValidationError("session: must be a non-empty string or None")
        sid = node_id(ns, "session", session)
        rows = yield Read("learning/recovery_state", dict(ns=ns, error_id=error_id, session_id=sid))
        return (rows[0] if rows else None), sid

    def _drop_fix_vectors(self, ns: str, fix_ids: Sequence[str]) -> Op[None]:
        if fix_ids:
            yield VectorDelete(ns, FIX_KIND, list(fix_ids))

    def index_pending_op(self, ns: str, batch: int = 500) -> Op[int]:
        """Embed and link every error pattern still waiting for its vector (after
        ``tool_results(index=False)`` or a Chroma failure); returns how many were indexed."""
        yield from self._flush_deferred()
        total = 0
        while True:
            pending = yield Read("learning/pending_errors", dict(ns=ns, limit=batch))
            rows = [r for r in pending if r["signature"]]
            if not rows:
                return total
            yield from self._index(ns, rows, [], [])
            total += len(rows)

    index_pending = synced(index_pending_op)

    # -- spool ----------------------------------------------------------------------
    def replay_spool_op(self) -> Op[int]:
        """Replay spooled events into the graph, exactly once; returns how many were replayed."""
        if self.replayer is None:
            return 0
        try:
            yield from self._flush_deferred()
        except _UNREACHABLE:
            pass  # handed over to the spool: the replay below takes it (or finds Neo4j down too)
        else:
            self._settle()
        return (yield from self.replayer.replay_op())

    replay_spool = synced(replay_spool_op)

    def _replay_run(self, ns: str, run: list[dict[str, Any]], cursor: Cursor) -> Op[bool]:
        """Apply one run of spooled tool results, moving the segment cursor in the same transaction."""
        _, errors, outcomes, closes, recoveries = yield from self._plan(ns, [Prepared.from_json(e) for e in run])
        params = yield from self._params(
            ns,
            errors,
            outcomes,
            closes,
            segment=cursor.segment,
            expected=cursor.expected,
            upto=cursor.upto,
            recoveries=recoveries,
        )
        rows = yield Write("learning/apply_events", params)
        if not rows:
            return False
        self._known.add(ns, indexed_ids(rows[0]["errors"]))
        try:
            yield from self._index(ns, rows[0]["errors"], rows[0]["resolved"], [])
        except Exception as exc:  # noqa: BLE001 - committed and counted; vectors repaired later
            log.warning("vector indexing after spool replay failed (repaired later): %s", exc)
        return True

    def _check_online(self) -> Op[None]:
        now = time.monotonic()
        if now < self._offline_until:
            raise BackendUnavailable("Neo4j was unreachable moments ago; not retrying yet")
        if now - self._last_ok > _PROBE_AFTER_S:
            yield Ping()
            self._last_ok = now

    def _replay_if_due(self) -> Op[None]:
        if self.replayer is not None and time.monotonic() >= self._offline_until:
            yield from self.replayer.replay_if_due_op()

    def _spool_or_raise(self, ns: str, events: Sequence[Prepared], exc: Exception) -> Op[list[Observation]]:
        if self.settings.strict or self.spool is None:
            raise exc if isinstance(exc, BackendUnavailable) else BackendUnavailable(str(exc))
        self._offline_until = time.monotonic() + self.settings.offline_retry_s
        self._hand_over(exc)  # deferred occurrences first: the spool replays segments oldest first
        try:  # the append (write + fsync) is local I/O: off the event loop under AsyncKGMem
            yield LocalIO(self.replayer.append, (ns, [e.to_json(0, ns) for e in events], LEARNING))  # type: ignore[union-attr]
        except OSError as write_error:  # the disk failed too: count the drop, never raise into the agent
            self.spool.bump(dropped=len(events))
            log.error("learning event(s) dropped: Neo4j unreachable (%s) and spool write failed (%s)", exc, write_error)
        else:
            log.warning("Neo4j unreachable (%s); %d learning event(s) spooled for replay", exc, len(events))
        out: list[Observation] = []
        for e in events:
            if e.message is None:
                out.append(success_observation(e, spooled=True))
                continue
            info = self.describe(ns, e.tool, e.message, e.exc_types)
            out.append(
                Observation(info.id, e.tool, info.category, info.pattern, 0, False, (), spooled=True, session=e.session)
            )
        return out

    # -- deferred repeats (kgmem/learning/deferred.py) ----------------------------------
    def _defer(self, ns: str, event: Prepared) -> Op[Observation | None]:
        """Answer a repeat of a known pattern from one read and append it to the deferred segment;
        None when it must take the write path (unknown pattern, replay due, Neo4j doubtful)."""
        d = self._deferred
        assert d is not None and event.message is not None
        info = self.describe(ns, event.tool, event.message, event.exc_types)
        if (
            (ns, info.id) not in self._known
            or time.monotonic() < self._offline_until
            or (self.replayer is not None and self.replayer.maybe_pending)
        ):
            return None
        try:
            yield from self._check_online()
        except _UNREACHABLE:
            return None  # the write path spools it (after handing the deferred lines over)
        with d.lock:  # a flush between the read and the append would count this pattern twice or not at all
            try:
                rows = yield Read("learning/known_fixes", {"ns": ns, "id": info.id})
            except _UNREACHABLE:
                return None
            if not rows or rows[0]["vector_pending"]:  # deleted meanwhile, or its vector went missing
                self._known.discard(ns, info.id)
                return None
            try:
                unapplied = yield LocalIO(d.append, (ns, event.to_json(0, ns), info.id))
            except OSError as exc:
                log.warning("deferred spool write failed (%s); writing this occurrence now", exc)
                return None
        self._last_ok = time.monotonic()
        self.deferred_total += 1
        self._start_flusher().notify()
        row = dict(rows[0], count=0)  # count 0: never is_new
        row["occurrences"] = int(row["occurrences"] or 0) + unapplied
        return self._observation(row, event.session)

    def _flush_deferred(self) -> Op[int]:
        """Apply the deferred occurrences (spool replay semantics: the segment cursor moves in the
        same transaction); on failure hand the segment over to the spool and raise."""
        d = self._deferred
        if d is None or not d.events:
            return 0
        applied = 0
        with d.lock:
            if not d.events:
                return 0
            try:
                key = d.segment
                assert key is not None and self.replayer is not None
                for _, ns, run in _groups(list(d.events)):
                    n = yield from self.replayer.apply_op(key, LEARNING, ns, run, cursor=d.cursor)
                    if n is None:
                        raise BackendUnavailable(f"deferred segment {key}: its cursor kept moving")
                    d.applied(int(run[-1]["seq"]))
                    applied += n
            except BaseException as exc:
                self._hand_over(exc)
                raise
        self._last_ok = time.monotonic()
        return applied

    def _hand_over(self, exc: BaseException) -> None:
        """Leave the deferred segment to the spool's replayer (in order, before anything spooled after)."""
        d = self._deferred
        if d is None:
            return
        n = d.hand_over()
        if n:
            assert self.replayer is not None
            self.replayer.maybe_pending = True
            log.warning("%d deferred occurrence(s) left to the spool replay: %s", n, exc)
        if isinstance(exc, _UNREACHABLE):
            self._offline_until = time.monotonic() + self.settings.offline_retry_s

    def _start_flusher(self) -> Flusher:
        with self._flusher_lock:
            if self._flusher is None:
                assert self._deferred is not None
                self._flusher = Flusher(
                    self._deferred,
                    self._background_flush,
                    self._idle,
                    self.settings.defer_flush_ms / 1000.0,
                    self.settings.defer_max_events,
                )
            return self._flusher

    def _background_flush(self) -> None:
        try:
            run(self._flush_deferred(), self.io)
        except Exception as exc:  # noqa: BLE001 - handed over to the spool; nobody to raise to
            log.warning("deferred occurrences not written now (%s); the spool replays them", exc)

    def _idle(self) -> None:
        if self._deferred is not None:
            self._deferred.rotate_if_done(time.monotonic())

    def flush(self, settle: bool = True) -> int:
        """Write the deferred occurrences now; returns how many were applied. If Neo4j is unreachable
        they stay in the spool (replayed exactly once later) and 0 is returned — unless ``strict``.
        ``settle``: also delete the fully applied deferred segment (False for the flush before a
        read, which may come often: each new segment is one more cursor node in the graph)."""
        try:
            applied = run(self._flush_deferred(), self.io)
        except _UNREACHABLE:
            if self.settings.strict:
                raise
            return 0
        if settle:
            self._settle()
        return applied

    def _settle(self) -> None:
        """After an explicit flush: delete the fully applied deferred segment (the spool is then empty
        of this client's lines, as ``kgmem learning status`` of any process shows)."""
        if self._deferred is not None:
            self._deferred.rotate_if_done(time.monotonic(), force=True)

    def close(self) -> None:
        """Stop the flusher, write what is deferred (or leave it to the spool) and release the segment."""
        with self._flusher_lock:
            flusher, self._flusher = self._flusher, None
        if flusher is not None:
            flusher.stop()
        if self._deferred is None:
            return
        try:
            self.flush()
        except Exception as exc:  # noqa: BLE001 - handed over: the next client's replay applies it
            log.warning("deferred occurrences left to the spool at close: %s", exc)
        if not self._deferred.rotate_if_done(time.monotonic(), force=True):
            self._deferred.hand_over()

    # -- graph + vectors --------------------------------------------------------------
    def _plan(self, ns: str, events: Sequence[Prepared]) -> Op[tuple[Any, list, list, list, list]]:
        pairs = open_failure_keys(ns, events)
        open_rows: dict[tuple[str, str], list[dict[str, Any]]] = {}
        if pairs:
            for row in (yield Read("learning/open_failures", dict(ns=ns, pairs=pairs))):
                open_rows.setdefault((row["session_id"], row["tool"]), []).append(row)
        plan = plan_batch(ns, events, self.settings.example_max_chars, open_rows, self.describe)
        return plan, plan.errors, plan.outcomes, plan.closes, plan.recoveries

    def _apply(
        self,
        ns: str,
        events: Sequence[Prepared],
        want_similar: bool = False,
        index: bool = True,
        marks: list[str] | None = None,
    ) -> Op[tuple[list, list, Any]]:
        plan, errors, outcomes, closes, recoveries = yield from self._plan(ns, events)
        if not (errors or outcomes or closes or recoveries):
            return [], [], plan  # successes with no open failure and nothing to hold: nothing to write
        params = yield from self._params(ns, errors, outcomes, closes, recoveries=recoveries, marks=marks)
        rows = yield Write("learning/apply_events", params)
        self._last_ok = time.monotonic()
        if not rows:  # only the ingest-mark guard returns nothing
            raise AlreadyApplied("some of these events were already ingested; nothing written")
        result_errors, resolved = rows[0]["errors"], rows[0]["resolved"]
        counts = {(r["id"]): r["count"] for r in errors}
        for row in result_errors:
            row["count"] = counts.get(row["id"], 0)
        self._known.add(ns, indexed_ids(result_errors))
        want = [r["id"] for r in result_errors if r["vector_pending"]] if want_similar else []
        try:
            similar = (yield from self._index(ns, result_errors, resolved, want)) if index else {}
        except Exception as exc:  # noqa: BLE001 - the event is committed; vectors are repaired next time
            if self.settings.strict:
                raise
            log.warning("vector indexing of new learning nodes failed (repaired on next occurrence): %s", exc)
            similar = {}
        else:
            if index:  # indexed now: the next occurrence may be deferred
                self._known.add(ns, [r["id"] for r in result_errors])
        for row in result_errors:
            row["similar"] = list(row["similar"]) + similar.get(row["id"], [])
        return result_errors, resolved, plan

    def _params(
        self,
        ns: str,
        errors: list,
        outcomes: list,
        closes: list,
        segment: str | None = None,
        expected: int = -1,
        upto: int = -1,
        retracts: list | None = None,
        recoveries: list | None = None,
        marks: list[str] | None = None,
    ) -> Op[dict[str, Any]]:
        """The parameters of ``learning/apply_events`` (concept extraction — spaCy, CPU — off the event loop)."""
        errors, outcomes = yield LocalIO(self._with_concepts, (ns, errors, outcomes))
        # Whether a success of the fix may prove two linked errors one (a retry proves nothing; unnamed: no).
        outcomes = [{**o, "proves": fix_proves_identity(o.get("description") or "")} for o in outcomes]
        return {
            "ns": ns,
            "now": now_iso(),
            "sessions": session_ids(errors, outcomes, closes, recoveries or []),
            "segment": segment,
            "expected": expected,
            "upto": upto,
            "marks": marks or [],
            "judgements": [],
            "call": new_occurrence(),  # call: whose judgement marks
            "errors": errors,
            "outcomes": outcomes,
            "closes": closes,
            "retracts": retracts or [],
            "recoveries": recoveries or [],
            **self.rules.cypher_params(),
        }

    def _with_concepts(self, ns: str, errors: list, outcomes: list) -> tuple[list, list]:
        """Copies of the rows carrying concept rows: ``concepts`` of an error's pattern, and an
        outcome's ``error_concepts`` / ``fix_concepts`` (null everywhere when concepts are off)."""
        extractor = self.concepts
        if extractor is None or not extractor.enabled or not (errors or outcomes):
            return errors, outcomes
        texts = [e.get("pattern") or "" for e in errors]
        texts += [t for o in outcomes for t in (o.get("pattern") or "", o.get("description") or "")]
        found = [concept_rows(ns, m) for m in extractor.extract_many(texts)]
        errors = [{**e, "concepts": found[i]} for i, e in enumerate(errors)]
        base = len(errors)
        outcomes = [
            {**o, "error_concepts": found[base + 2 * i], "fix_concepts": found[base + 2 * i + 1]}
            for i, o in enumerate(outcomes)
        ]
        return errors, outcomes

    def _index(
        self, ns: str, errors: list[dict[str, Any]], resolved: list[dict[str, Any]], want: list[str]
    ) -> Op[dict[str, list[dict[str, Any]]]]:
        """Embed and link what is new (vector_pending); return similar fixes for ``want`` ids."""
        new_errors: dict[str, dict[str, Any]] = {r["id"]: r for r in errors if r["vector_pending"]}
        for r in resolved:
            if r.get("error_pending") and r["error_id"] not in new_errors and r.get("signature"):
                new_errors[r["error_id"]] = {
                    "id": r["error_id"],
                    "signature": r["signature"],
                    "keys": r["keys"],
                    "tool": r["tool"],
                    "category": r["category"],
                    "template": r.get("template") or "",
                }
        new_fixes = {r["fix_id"]: r for r in resolved if r.get("fix_pending")}
        if not new_errors and not new_fixes:
            return {}
        err_rows, fix_rows = list(new_errors.values()), list(new_fixes.values())
        texts = [r["signature"] or "" for r in err_rows] + [r["description"] for r in fix_rows]
        vectors = yield Embed(texts)
        err_vecs, fix_vecs = vectors[: len(err_rows)], vectors[len(err_rows) :]
        links: list[dict[str, Any]] = []
        if err_rows:
            yield VectorUpsert(
                ns,
                ERROR_KIND,
                [r["id"] for r in err_rows],
                err_vecs,
                [r["signature"] for r in err_rows],
                [kinds.ERROR.metadata(r) for r in err_rows],
            )
            links = yield from self._neighbours(ns, err_rows, err_vecs)
        if fix_rows:
            yield VectorUpsert(
                ns,
                FIX_KIND,
                [r["fix_id"] for r in fix_rows],
                fix_vecs,
                [r["description"] for r in fix_rows],
                [kinds.FIX.metadata(r) for r in fix_rows],
            )
        rows = yield Write(
            "learning/link_similar",
            dict(
                ns=ns,
                now=now_iso(),
                links=links,
                error_ids=[r["id"] for r in err_rows],
                fix_ids=[r["fix_id"] for r in fix_rows],
                ids=want,
            ),
        )
        # a forget that planned these patterns or fixes may have deleted their vectors before the
        # upserts above: one read of the tombstones, and those vectors go
        yield from drop_forgotten_op(
            ns, {ERROR_KIND: [r["id"] for r in err_rows], FIX_KIND: [r["fix_id"] for r in fix_rows]}
        )
        return {r["id"]: r["similar"] for r in rows}

    def _neighbours(self, ns: str, rows: list[dict[str, Any]], vectors: Any) -> Op[list[dict[str, Any]]]:
        """SIMILAR_TO links for new patterns: candidates from the template index, BM25 over the
        patterns and the vector leg; each scored by :func:`~kgmem.learning.matching.match_score`
        (identity guard first), linked when the score reaches the calibrated threshold."""
        k = self.settings.similar_neighbours
        if k == 0:
            return []
        count = yield VectorCount(ns, ERROR_KIND)
        if count < 2:
            return []
        # {own id: {candidate id: (cosine or None, {"template", "keys"})}}
        cands = yield from self._vector_leg(ns, rows, vectors, k)
        for c in (yield Read("learning/match_candidates", self._candidate_params(ns, rows, k))):
            per = cands.setdefault(c["id"], {})
            if c["candidate"] not in per:
                per[c["candidate"]] = (None, {"template": c["template"], "keys": c["keys"]})
        unseen = sorted({cid for per in cands.values() for cid, (cos, _) in per.items() if cos is None})
        stored = (yield VectorGet(ns, ERROR_KIND, unseen)) if unseen else {}
        model = matching.DEFAULT_MODEL
        scored: list[tuple[str, str, float, bool]] = []
        asks: dict[str, tuple[str, list[Borderline]]] = {}
        for i, own in enumerate(rows):
            mine = ErrorText(own.get("template") or "", decode_keys(own["keys"] or ""))
            for cid, (cos, meta) in cands.get(own["id"], {}).items():
                if cid == own["id"] or (cos is None and cid not in stored):
                    continue  # no vector yet (vector_pending): linked when it is indexed
                cosine = cos if cos is not None else float(np.dot(vectors[i], stored[cid]))
                other = ErrorText(meta.get("template") or "", decode_keys(meta.get("keys") or ""))
                score = matching.match_score(mine, other, cosine, model)
                if score is None:
                    continue
                scored.append((own["id"], cid, score, same_error(mine, other)))
                if self.adjudicator is not None and self.adjudicator.asks_about(score, model.threshold):
                    asks.setdefault(own["id"], (mine.template, []))[1].append(Borderline(cid, other.template, score))
        verdicts = (
            (yield LocalIO(self.adjudicator.decide_all, (asks, model.threshold))) if asks and self.adjudicator else {}
        )
        links: dict[tuple[str, str], tuple[float, bool]] = {}
        for own_id, cid, score, identity in scored:
            same = verdicts.get((own_id, cid))
            if not (same if same is not None else score >= model.threshold):
                continue
            pair = (min(own_id, cid), max(own_id, cid))
            # an adjudicated link is as strong as a link at the threshold, whatever the text signals said;
            # whether it is an identity (a borrowed fix may act) is the text's proof alone (same_error)
            before = links.get(pair, (0.0, False))
            links[pair] = (max(before[0], round(max(score, model.threshold), 6)), before[1] or identity)
        return [{"a": a, "b": b, "score": s, "identity": i} for (a, b), (s, i) in links.items()]

    def _vector_leg(
        self, ns: str, rows: list[dict[str, Any]], vectors: Any, k: int
    ) -> Op[dict[str, dict[str, tuple[float | None, dict[str, Any]]]]]:
        """Top-k neighbours by cosine (same tool unless ``similar_across_tools``), with their metadata."""
        out: dict[str, dict[str, tuple[float | None, dict[str, Any]]]] = {}
        groups: dict[str | None, list[int]] = {}
        for i, row in enumerate(rows):
            groups.setdefault(None if self.settings.similar_across_tools else row["tool"], []).append(i)
        for tool, idx in groups.items():
            res = yield VectorQueryMany(
                ns, ERROR_KIND, vectors[idx], k + 1, {"tool": tool} if tool is not None else None
            )
            for j, i in enumerate(idx):
                out[rows[i]["id"]] = {
                    hit: (1.0 - float(d), dict(m or {}))
                    for hit, d, m in zip(res["ids"][j], res["distances"][j], res["metadatas"][j])
                }
        return out

    def _candidate_params(self, ns: str, rows: list[dict[str, Any]], k: int) -> dict[str, Any]:
        return {
            "ns": ns,
            "index": _FULLTEXT_INDEX,
            "across_tools": self.settings.similar_across_tools,
            "template_limit": k,
            "fulltext_limit": k,
            "rows": [
                {
                    "id": r["id"],
                    "tool": r["tool"],
                    "template": r.get("template") or "",
                    "query": lucene_query(
                        " ".join((r.get("template") or r["signature"] or "").split()[:_BM25_TERMS]), ns
                    ),
                }
                for r in rows
            ],
        }

    # -- helpers ----------------------------------------------------------------------
    def _observation(self, row: Mapping[str, Any], session: str | None = None) -> Observation:
        fixes = rank_fixes(row["direct"], row["similar"], self.rules.auto_apply)
        return Observation(
            id=row["id"],
            tool=row["tool"],
            category=row["category"],
            pattern=row.get("pattern", ""),
            occurrences=int(row["occurrences"]),
            is_new=row["occurrences"] == row["count"],
            fixes=fixes,
            failed_fixes=failed_fixes(row["direct"]),
            session=session,
        )

    def _error_info(self, ns: str, error: Observation | str, tool: str | None) -> Op[dict[str, Any]]:
        if isinstance(error, Observation):
            if error.ok and not error.id:
                raise ValidationError(
                    "error: this Observation is a success that recovered no error; nothing to resolve"
                )
            error = error.id
        if not isinstance(error, str) or not error.strip():
            raise ValidationError("error: must be an Observation, an error id or an error message")
        if tool is None and len(error) == 32 and set(error) <= _ID_CHARS:
            rows = yield Read("learning/error_by_id", dict(ns=ns, id=error))
            if not rows:
                raise ErrorNotFound(f"error: no error pattern with id {error!r} in namespace {ns!r}")
            return rows[0]
        if tool is None or not isinstance(tool, str) or not tool.strip():
            raise ValidationError("tool: required when error is given as a message")
        tool = bounded_key(tool.strip())  # the same stable key tool_result stored
        info = self.describe(ns, tool, error)
        return {
            "id": info.id,
            "tool": tool,
            "pattern": info.pattern,
            "signature": info.signature,
            "keys": info.keys,
            "category": info.category,
            "template": info.template,
        }


def session_ids(*row_lists: Iterable[Mapping[str, Any]]) -> list[str]:
    """The session ids some ``learning/apply_events`` rows name, sorted: the statement locks them in
    this order (one order for every writer) before it reads their forget marks."""
    return sorted({sid for rows in row_lists for row in rows if isinstance(sid := row.get("session_id"), str)})


def _prepare_any(event: ToolEvent | Mapping[str, Any], index: int, error_max_chars: int) -> Prepared:
    try:
        if isinstance(event, ToolEvent):
            return prepare(event.tool, event.params, event.error, event.session, event.ts, error_max_chars)
        if isinstance(event, Mapping):
            unknown = set(event) - {"tool", "params", "error", "result", "session", "ts"}
            if unknown:
                raise ValidationError(f"unknown field(s) {sorted(unknown)}")
            return prepare(
                event.get("tool"),
                event.get("params"),
                event.get("error"),
                event.get("session"),
                event.get("ts"),
                error_max_chars,
            )
    except ValidationError as exc:
        raise ValidationError(f"events[{index}].{exc}") from exc
    raise ValidationError(f"events[{index}]: must be a ToolEvent or a mapping; got {type(event).__name__}")


def _fix_outcome(row: Mapping[str, Any], propagated: int, *, counted: bool = True) -> FixOutcome:
    """A :class:`FixOutcome` from an error→fix edge row of ``learning/apply_events`` or ``learning/fix_outcome``."""
    return FixOutcome(
        row["error_id"],
        row["fix_id"],
        row["description"],
        float(row["confidence"]),
        int(row["successes"]),
        int(row["failures"]),
        propagated,
        counted=counted,
    )

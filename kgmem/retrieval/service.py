"""The retrieval service behind ``KGMem.search / context / feedback``.

It picks the retriever for a config (one class per strategy), assigns each search
a ``query_id`` and remembers which items were returned — that is what feedback judges
(retrieved-not-used gets −0.1): recent queries in memory, every query in Neo4j
(``KgmemQuery``, with a TTL) so feedback can come from any process. A query takes one
judgement (the marker is set in the statement that applies it: retries count once, also from
other processes). Feedback on a session's query goes to that session's BQAR overlay while the
session is open, to the global posteriors once it has ended.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import neo4j
import numpy as np

from kgmem.errors import BackendUnavailable, ValidationError
from kgmem.graph import GraphStore
from kgmem.graph.keys import bounded_optional, check_namespace
from kgmem.retrieval import bqar, recency
from kgmem.retrieval import feedback as fb
from kgmem.retrieval.config import KIND_LABELS, SearchConfig, preset
from kgmem.retrieval.context import MIN_TOKENS, Context, render
from kgmem.retrieval.graph import GraphRAGRetriever
from kgmem.retrieval.hybrid import HybridRetriever, SingleLegRetriever
from kgmem.retrieval.legs import DEFAULT_LEGS, GuardedLeg, LegSpec, build_legs, check_registry, leg_weights
from kgmem.retrieval.scope import Scope
from kgmem.retrieval.timing import StageClock
from kgmem.retrieval.types import Judgement, SearchResult
from kgmem.runner import Background, EmbedQuery, Flush, LocalIO, Op, Read, SyncIO, Write, synced
from kgmem.vectors import Embedder, VectorStore

if TYPE_CHECKING:
    from kgmem.concepts import ConceptExtractor

log = logging.getLogger(__name__)

QUERY_LOG_SIZE = 10_000  # recent queries answered from memory; older ones are read back from Neo4j
#: Default wait of a query-log write for the searches after it (docs/retrieval.md "Feedback from any process").
QUERY_LOG_DELAY_MS = 1000
SESSION_CACHE_SIZE = 1_000
QUERY_PRUNE_BATCH = 100
EXPIRE_BATCH = 100  # never-ended sessions merged per expiry pass (end_session / kgmem expire-overlays)


class UnknownQuery(ValidationError):
    """``feedback`` named a query_id that was never issued or has expired."""


@dataclass
class _Query:
    """What feedback needs of a past search: where it ran and what it returned (and rendered)."""

    ns: str
    session: str | None
    hits: list[tuple[str, str]]
    included: list[str] = field(default_factory=list)
    # The session's shift count when the search ran (its feedback is damped for later shifts); None when
    # the search did not run shift detection: its feedback counts as current.
    epoch: int | None = None
    expires_ms: int | None = None  # when the entry stops accepting feedback (None: as read from Neo4j, checked there)


@dataclass(frozen=True)
class ExpiredSession:
    """A session that never called ``end_session`` and whose overlay was merged after the TTL."""

    ns: str
    session: str
    last_ms: int
    merges: list[bqar.Merge]


class RetrievalEngine:
    """Search, context rendering and feedback as operations (generators of I/O requests, see
    :mod:`kgmem.runner`): :class:`Retrieval` runs them on the sync stores for ``KGMem``,
    ``AsyncKGMem`` on the async ones. Holds the per-process state both share: the recent
    query log, the sessions' shift-detection states, the Thompson sampler.

    Args:
        default_preset: preset used when a call names none (``settings.retrieval.preset``).
        overrides: SearchConfig fields applied over every preset.
        query_ttl_hours: how long a query_id accepts feedback (from any process; stored in Neo4j).
        thompson_seed: seed of the generator behind ``usage_sampling="thompson"`` (None = fresh entropy).
        legs: the leg registry (:data:`kgmem.retrieval.legs.DEFAULT_LEGS`); every strategy uses the
            legs a config enables, in this order.
        overlay_ttl_hours: a session idle this long (no search, no feedback) that never called
            ``end_session`` has its overlay merged like an ended one (:meth:`expire_overlays_op`).
        concepts: the concept extractor the writers use (the concept hop reads the question's concepts
            with it); None = the question's capitalised names.
        query_log_delay_ms: how long a search's query-log entry may wait for others to share its write
            (0: a write is scheduled at once). Every flush cuts the wait short.
    """

    def __init__(
        self,
        default_preset: str = "balanced",
        overrides: dict[str, Any] | None = None,
        *,
        query_ttl_hours: float = 168.0,
        thompson_seed: int | None = None,
        legs: Sequence[LegSpec] = DEFAULT_LEGS,
        overlay_ttl_hours: float = 24.0,
        concepts: ConceptExtractor | None = None,
        query_log_delay_ms: int = QUERY_LOG_DELAY_MS,
    ) -> None:
        self.legs = check_registry(legs)
        self.concepts = concepts
        self.default_preset = default_preset
        self.overrides = dict(overrides or {})
        preset(default_preset).with_overrides(**self.overrides)  # fail at start-up on a bad name or value
        if query_ttl_hours <= 0:
            raise ValidationError(f"query_ttl_hours: must be > 0, got {query_ttl_hours}")
        self.query_ttl_ms = int(query_ttl_hours * 3_600_000)
        self.overlay_ttl_ms = _ttl_ms("overlay_ttl_hours", overlay_ttl_hours)
        self._queries: OrderedDict[str, _Query] = OrderedDict()
        self._sessions: OrderedDict[tuple[str, str], bqar.ShiftState] = OrderedDict()
        self._lock = threading.Lock()
        self._rng = np.random.default_rng(thompson_seed)
        # Query-log entries not yet written, and whether a write that will take them is scheduled.
        self._log_pending: list[dict[str, Any]] = []
        self._log_scheduled = False
        if not isinstance(query_log_delay_ms, int) or isinstance(query_log_delay_ms, bool) or query_log_delay_ms < 0:
            raise ValidationError(f"query_log_delay_ms: must be an integer >= 0, got {query_log_delay_ms!r}")
        self.query_log_delay_s = query_log_delay_ms / 1000
        self._log_wake = threading.Event()  # set: the scheduled query-log write goes now

    def _preset(self, name: str | None) -> SearchConfig:
        base = preset(name, self.default_preset)
        return base.with_overrides(**self.overrides) if self.overrides else base

    def _sample(self, alpha: float, beta: float) -> float:
        with self._lock:  # numpy generators are not thread-safe
            return bqar.sample_posterior(self._rng, alpha, beta)

    def retriever(
        self, config: SearchConfig, legs: Sequence[GuardedLeg] | None = None, observe: _Observe | None = None
    ):
        """The retriever for ``config``: one leg alone, the legs fused (hybrid), or Graph RAG.
        ``legs`` defaults to the registry's legs ``config`` enables; with ``observe``, a Graph RAG
        retriever that runs a session's shift detection before its expansion."""
        legs = build_legs(self.legs, config) if legs is None else legs
        traverse = config.use_graph or config.use_quality
        if not traverse and len(legs) == 1:
            return SingleLegRetriever(legs[0])
        hybrid = HybridRetriever(legs, leg_weights(self.legs, config), config)
        if not traverse:
            return hybrid
        if observe is not None:
            return _SessionGraphRAG(hybrid, config, self._sample, observe, self.concepts)
        return GraphRAGRetriever(hybrid, config, self._sample, self.concepts)

    def search_op(
        self,
        query: str,
        ns: str,
        k: int = 10,
        session: str | None = None,
        kinds: Any = None,
        preset_name: str | None = None,
        config: SearchConfig | None = None,
        explain: bool = False,
        as_of: Any = None,
    ) -> Op[SearchResult]:
        """Run one search; see :meth:`kgmem.KGMem.search`. With ``explain``, ``timings_ms`` holds
        every stage's time (:mod:`kgmem.retrieval.timing`); ``as_of``: what was valid then."""
        result, state = yield from self._search(query, ns, k, session, kinds, preset_name, config, explain, as_of)
        yield from self._remember(result, session, [], state)
        return result

    def _search(
        self,
        query: str,
        ns: str,
        k: int,
        session: str | None,
        kinds: Any,
        preset_name: str | None,
        config: SearchConfig | None,
        explain: bool = False,
        as_of: Any = None,
    ) -> Op[tuple[SearchResult, bqar.ShiftState | None]]:
        t0 = time.perf_counter_ns()
        if not isinstance(query, str) or not query.strip():
            raise ValidationError("query: must be a non-empty string")
        clock = StageClock() if explain else None
        scope = Scope.build(check_namespace(ns), k, kinds, bounded_optional(session), clock, as_of)
        cfg = config or self._preset(preset_name)
        legs = build_legs(self.legs, cfg)
        if not legs:
            raise ValidationError(
                f"search config {cfg.name!r}: enables no retrieval leg "
                f"(legs: {', '.join(spec.name for spec in self.legs)})"
            )
        retriever = self.retriever(cfg, legs, self._observe if _detects_shifts(scope, cfg) else None)
        session_rag = retriever if isinstance(retriever, _SessionGraphRAG) else None
        failed: dict[str, str] = {}
        try:
            hits = yield from retriever.search(query, scope)
        except (BackendUnavailable, neo4j.exceptions.Neo4jError, neo4j.exceptions.DriverError) as exc:
            # The graph is gone mid-search (expansion / hydration; a guarded leg never raises these):
            # answer from the legs that did not fail, fused without the traversal.
            alive = [leg for leg in legs if not leg.failure]
            if not alive:
                raise BackendUnavailable(f"no retrieval leg answered: {exc}") from exc
            log.warning("search degraded to the %s leg(s): %s", "+".join(leg.name for leg in alive), exc)
            failed["graph"] = f"{type(exc).__name__}: {exc}"[:300]
            retriever = self.retriever(cfg.with_overrides(use_graph=False, use_quality=False), alive)
            hits = yield from retriever.search(query, scope)
        if cfg.newer_first and scope.as_of is None:
            hits = recency.newer_first(hits, query)
        failed.update({leg.name: leg.failure for leg in legs if leg.failure})
        if all(leg.failure for leg in legs):
            raise BackendUnavailable("no retrieval leg answered: " + "; ".join(failed.values()))
        state = None
        if session_rag is not None:  # a search with no candidate never reached the expansion: observe now
            state = (yield from session_rag.observed(query, scope)).state
        timings = dict(getattr(retriever, "last_timings", {}))
        if clock is not None:
            clock.add("total", t0)
            timings.update(clock.ms())
        timings["total_ms"] = (time.perf_counter_ns() - t0) / 1e6
        result = SearchResult(
            query_id=uuid.uuid4().hex,
            query=query,
            ns=ns,
            preset=cfg.name,
            hits=hits,
            timings_ms=timings,
            failed_legs=failed,
        )
        return result, state

    def context_op(self, query: str, ns: str, max_tokens: int = 1000, **search_kwargs: Any) -> Op[Context]:
        """Search, then render the hits as a prompt block with numbered citations. The citations are
        remembered with the query, so ``feedback(..., response=...)`` can attribute an outcome to them."""
        if not isinstance(max_tokens, int) or max_tokens < MIN_TOKENS:
            raise ValidationError(f"max_tokens: must be an integer >= {MIN_TOKENS}")
        kw: dict[str, Any] = {
            "k": 10,
            "session": None,
            "kinds": None,
            "preset_name": None,
            "config": None,
            "as_of": None,
        }
        unknown = set(search_kwargs) - set(kw)
        if unknown:
            raise TypeError(f"context() got unexpected argument(s) {', '.join(sorted(unknown))}")
        kw.update(search_kwargs)
        result, state = yield from self._search(
            query, ns, kw["k"], kw["session"], kw["kinds"], kw["preset_name"], kw["config"], as_of=kw["as_of"]
        )
        ctx = render(result, max_tokens)
        yield from self._remember(result, kw["session"], [h.id for h in ctx.citations], state)
        return ctx

    # -- the query log: feedback from any process ---------------------------------------------
    def _remember(
        self, result: SearchResult, session: str | None, included: list[str], state: bqar.ShiftState | None
    ) -> Op[None]:
        now_ms = int(time.time() * 1000)
        entry = _Query(
            result.ns,
            session,
            [(h.id, h.kind) for h in result.hits],
            included,
            None if state is None else state.shifts,
            now_ms + self.query_ttl_ms,
        )
        with self._lock:
            self._queries[result.query_id] = entry
            while len(self._queries) > QUERY_LOG_SIZE:
                self._queries.popitem(last=False)
        params = dict(
            id=result.query_id,
            ns=result.ns,
            session=session,
            query=result.query,
            preset=result.preset,
            hit_ids=[i for i, _ in entry.hits],
            hit_kinds=[k for _, k in entry.hits],
            included=included,
            now_ms=now_ms,
            expires_ms=now_ms + self.query_ttl_ms,
            state=None if state is None else {"centroid": list(state.centroid), "n": state.n, "shifts": state.shifts},
        )
        with self._lock:
            self._log_pending.append(params)
            schedule, self._log_scheduled = not self._log_scheduled, True
            if schedule:
                self._log_wake.clear()
        # Query-log writes leave the search path: feedback from this process works from memory meanwhile.
        # Searches that end while a write is waiting or running go together into the next one (one
        # UNWIND): a write beside nearly every search cost each ~3 ms CPU and ~4 ms of latency.
        if schedule:
            yield Background(self._write_log(), "query log write", wake=self._log_wake.set)

    def _write_log(self) -> Op[None]:
        """Wait up to ``query_log_delay_ms`` (or until a flush wakes it) for more searches, then write every
        pending query-log entry in one statement (a background operation)."""
        if self.query_log_delay_s > 0:
            yield LocalIO(self._log_wake.wait, (self.query_log_delay_s,))
        with self._lock:
            entries, self._log_pending, self._log_scheduled = self._log_pending, [], False
        if entries:
            yield Write(
                "retrieval/query_log", dict(entries=entries, now_ms=int(time.time() * 1000), prune=QUERY_PRUNE_BATCH)
            )

    def _query(self, query_id: str) -> Op[_Query]:
        with self._lock:
            entry = self._queries.get(query_id)
        if entry is not None:
            if entry.expires_ms is not None and entry.expires_ms < int(time.time() * 1000):
                raise UnknownQuery(f"query_id: {query_id!r} is unknown or has expired")
            return entry
        if not isinstance(query_id, str) or not query_id:
            raise UnknownQuery(f"query_id: {query_id!r} is not a query id")
        rows = yield Read("retrieval/query_get", dict(id=query_id, now_ms=int(time.time() * 1000)))
        if not rows:
            raise UnknownQuery(f"query_id: {query_id!r} is unknown or has expired")
        row = rows[0]
        return _Query(
            row["ns"],
            row["session"],
            list(zip(row["hit_ids"], row["hit_kinds"])),
            list(row["included"] or []),
            row["epoch"],
        )

    # -- feedback and BQAR session overlays ---------------------------------------------------------
    def feedback_op(
        self,
        query_id: str,
        used: Any = (),
        outcome: str | float = "included",
        response: str | None = None,
        ns: str | None = None,
    ) -> Op[Judgement]:
        """Judge a query's hits: update their usage posteriors, once per query id.

        A query id takes one judgement. The judged marker is set on the query's log entry in the
        same Cypher statement that applies the signals, under the entry's write lock, so a repeat —
        a retried call, from this or any other process, even concurrently — changes nothing and
        returns ``counted=False`` (whatever its arguments: the first judgement stands).

        A query made in a session updates that session's overlay (seen at once by the session's
        searches, merged into the global posteriors by :meth:`end_session_op`) while the session is
        open; once the session has ended (or expired), the global posteriors directly. A query made
        without a session updates the global posteriors. For a query rendered by :meth:`context_op`,
        the outcome is attributed causally: the cited hits (``used``, and the ``[n]`` citations found
        in ``response``) get the outcome's signal, the other rendered hits ``included``, the rest
        ``-0.1`` (:func:`kgmem.retrieval.bqar.attribute`).
        """
        if isinstance(used, str) or hasattr(used, "id"):
            used = [used]
        used = [getattr(u, "id", u) for u in used]  # ids or the SearchHit objects themselves
        entry = yield from self._query(query_id)
        if ns is not None and entry.ns != ns:
            raise UnknownQuery(f"query_id: {query_id!r} is unknown or has expired")
        if response is not None:
            if not entry.included:
                raise ValidationError("response: this query was not rendered by context(), so it has no citations")
            used = bqar.citations_to_ids(bqar.cited_numbers(response), entry.included) + used
        if entry.included:
            changes = bqar.attribute(entry.hits, entry.included, used, outcome)
        else:
            changes = fb.updates(entry.hits, used, outcome)
        updates = [{"id": u.id, "label": KIND_LABELS[u.kind], "delta": u.delta} for u in changes]
        now = datetime.now(UTC)
        now_ms = int(now.timestamp() * 1000)
        # The log entry as query_log.cypher writes it: used only if that background write has not landed.
        log_props = dict(
            ns=entry.ns,
            session=entry.session,
            hit_ids=[i for i, _ in entry.hits],
            hit_kinds=[k for _, k in entry.hits],
            included=entry.included,
            epoch=entry.epoch,
            created_ms=now_ms,
            expires_ms=entry.expires_ms or now_ms + self.query_ttl_ms,
        )
        rows = yield Write(
            "retrieval/feedback",
            dict(
                query_id=query_id,
                log=log_props,
                now=now.isoformat(),
                now_ms=now_ms,
                epoch=entry.epoch,
                damping=self._preset(None).shift_damping,
                prior_alpha=1.0,
                prior_beta=1.0,
                outcome=str(outcome),
                updates=updates,
            ),
        )
        row = rows[0]
        judgement = Judgement(query_id, bool(row["counted"]), row["target"], int(row["calls"]), list(row["rows"]))
        if judgement.counted:
            log.debug("feedback %s: %d updates (%s)", query_id, len(judgement.posteriors), judgement.target)
        else:
            log.info(
                "feedback %s: already judged (%s), call %d changed nothing", query_id, judgement.target, judgement.calls
            )
        return judgement

    def _observe(self, query: str, scope: Scope, cfg: SearchConfig) -> Op[bqar.ShiftState | None]:
        """Shift detection for a session search: fold the query into the session's centroid. Writes
        nothing: a shift raises the session's epoch, and the overlay read of this and later searches
        damps the view by ``shift_damping`` per shift since it was written (``expand.cypher``); the new
        state is stored with this search's query-log entry, off the search path."""
        if scope.session is None:  # only a session's searches detect shifts (_detects_shifts)
            return None
        key = (scope.ns, scope.session)
        with self._lock:
            state = self._sessions.get(key)
        try:
            if state is None:  # first search of this session in this process: one read, then memory
                rows = yield Read("retrieval/session_state", dict(ns=scope.ns, session=scope.session))
                row = rows[0] if rows else {}
                state = bqar.ShiftState(
                    tuple(row.get("centroid") or ()), int(row.get("n") or 0), int(row.get("shifts") or 0)
                )
            vector = yield EmbedQuery(query)  # cached: the vector leg has embedded the query already
        except BackendUnavailable as exc:  # shift detection is an extra: the search itself decides how to degrade
            log.warning("session %s: shift detection skipped (%s)", scope.session, exc)
            return None
        verdict = bqar.observe(state, vector, cfg.shift_threshold, cfg.shift_window, cfg.shift_min_queries)
        if verdict.is_shift:
            log.info(
                "session %s: conversation shift %d (distance %.2f), overlay view x%.2f from now on",
                scope.session,
                verdict.state.shifts,
                verdict.distance,
                cfg.shift_damping,
            )
        with self._lock:
            self._sessions[key] = verdict.state
            self._sessions.move_to_end(key)
            while len(self._sessions) > SESSION_CACHE_SIZE:
                self._sessions.popitem(last=False)
        return verdict.state

    def session_state(self, ns: str, session: str) -> bqar.ShiftState:
        """The shift-detection state this process holds for a session (empty if none)."""
        with self._lock:
            return self._sessions.get((ns, session), bqar.ShiftState())

    def close_session_op(self, ns: str, session: str) -> Op[list[bqar.Merge]]:
        """:meth:`end_session_op` for the clients' ``end_session``: with Neo4j down the overlay stays
        (logged, not raised), and a later ``end_session`` merges it."""
        try:
            return (yield from self.end_session_op(ns, session))
        except BackendUnavailable as exc:
            log.warning(
                "session %s: retrieval feedback not merged yet (%s); call end_session again later", session, exc
            )
            return []

    def end_session_op(self, ns: str, session: str) -> Op[list[bqar.Merge]]:
        """Merge the session's overlay into the global posteriors (three-way; safe under concurrent
        merges) and drop it; the session's logged queries are marked ended, so feedback on them from now
        on goes to the global posteriors at once. Returns one :class:`~kgmem.retrieval.bqar.Merge` per
        item it had judged.
        Then merges the overlays of the namespace's sessions idle longer than ``overlay_ttl_hours``
        that never ended (:meth:`expire_overlays_op`; a failure there is logged, not raised)."""
        yield Flush()
        merged = yield from self._merge([{"ns": ns, "session": session}])
        merges = merged[0][1] if merged else []
        conflicts = sum(m.conflict for m in merges)
        if merges:
            log.info(
                "session %s merged: %d items, %d with concurrent opposite evidence", session, len(merges), conflicts
            )
        try:
            yield from self.expire_overlays_op(ns)
        except (BackendUnavailable, neo4j.exceptions.Neo4jError, neo4j.exceptions.DriverError) as exc:
            log.warning("expiry of idle session overlays in %s skipped: %s", ns, exc)
        return merges

    def expire_overlays_op(
        self, ns: str | None = None, ttl_hours: float | None = None, limit: int = EXPIRE_BATCH
    ) -> Op[list[ExpiredSession]]:
        """Merge the overlays of sessions that never called ``end_session`` and have been idle (no
        search, no feedback) longer than the TTL, by the same three-way merge, so their feedback
        reaches the global posteriors instead of staying in the graph forever.

        Args:
            ns: the namespace, or None for every namespace.
            ttl_hours: idle time after which a session is merged (default ``overlay_ttl_hours``).
            limit: sessions merged in this call, oldest first (call again for more).
        """
        ttl_ms = self.overlay_ttl_ms if ttl_hours is None else _ttl_ms("ttl_hours", ttl_hours)
        if not isinstance(limit, int) or limit < 1:
            raise ValidationError(f"limit: must be an integer >= 1, got {limit!r}")
        rows = yield Read(
            "retrieval/overlay_stale", dict(ns=ns, cutoff_ms=int(time.time() * 1000) - ttl_ms, limit=limit)
        )
        if not rows:
            return []
        last = {(r["ns"], r["session"]): r["last_ms"] for r in rows}
        merged = yield from self._merge([{"ns": n, "session": s} for n, s in last])
        out = [ExpiredSession(n, s, last[(n, s)], merges) for (n, s), merges in merged]
        log.info("merged the overlays of %d sessions idle for more than %.1f h", len(out), ttl_ms / 3_600_000)
        return out

    def _merge(self, targets: list[dict[str, str]]) -> Op[list[tuple[tuple[str, str], list[bqar.Merge]]]]:
        """Three-way merge of the overlays of ``targets`` ({ns, session}) in one write."""
        now = datetime.now(UTC)
        rows = yield Write(
            "retrieval/overlay_merge",
            dict(
                targets=targets,
                now=now.isoformat(),
                now_ms=int(now.timestamp() * 1000),
                prior_alpha=1.0,
                prior_beta=1.0,
            ),
        )
        with self._lock:
            for t in targets:
                self._sessions.pop((t["ns"], t["session"]), None)
        return [((row["ns"], row["session"]), _merges(row["merged"])) for row in rows]


def _merges(items: list[dict[str, Any]]) -> list[bqar.Merge]:
    """The merge of each item from what ``overlay_merge.cypher`` returns (base, our delta, merged)."""
    merges = []
    for item in items:
        if item["alpha"] is None:  # the item was deleted meanwhile: nothing to merge into
            continue
        base = bqar.Beta(item["base_alpha"], item["base_beta"])
        ours = bqar.Beta(item["d_alpha"], item["d_beta"])
        merged = bqar.Beta(item["alpha"], item["beta"])
        current = merged - ours  # the global value our delta was added to
        merges.append(bqar.three_way_merge(base, base + ours, current))
    return merges


def _ttl_ms(name: str, hours: float) -> int:
    if isinstance(hours, bool) or not isinstance(hours, (int, float)) or hours <= 0:
        raise ValidationError(f"{name}: must be a number > 0, got {hours!r}")
    return int(hours * 3_600_000)


def _detects_shifts(scope: Scope, cfg: SearchConfig) -> bool:
    """Whether a search runs BQAR shift detection: in a session, with its overlay, ranked by quality."""
    return scope.session is not None and cfg.use_session_overlay and cfg.shift_threshold > 0 and cfg.use_quality


_Observe = Callable[[str, Scope, SearchConfig], Op["bqar.ShiftState | None"]]


class _SessionGraphRAG(GraphRAGRetriever):
    """Graph RAG for a session search with shift detection. The query is folded into the session's
    centroid between the legs and the expansion read: after the vector leg has embedded the query
    (so detection neither waits for nor delays the keyword leg, which overlaps the embedding), and
    before the overlay is read, which it reaches as the session's epoch (damping per shift)."""

    def __init__(
        self,
        hybrid: HybridRetriever,
        config: SearchConfig,
        sample: Callable[[float, float], float],
        observe: _Observe,
        concepts: ConceptExtractor | None = None,
    ) -> None:
        super().__init__(hybrid, config, sample, concepts)
        self._observe = observe
        self._done = False
        self.state: bqar.ShiftState | None = None

    def observed(self, query: str, scope: Scope) -> Op[_SessionGraphRAG]:
        """Run the shift detection once per search; ``self.state`` is then the session's new state."""
        if not self._done:
            self._done = True
            self.state = yield from self._observe(query, scope, self.config)
        return self

    def _expand(self, fused, scope, query, names):  # noqa: ANN001, ANN202 - same signature as the base class
        yield from self.observed(query, scope)
        if self.state is not None:
            scope = replace(scope, overlay_epoch=self.state.shifts, overlay_damping=self.config.shift_damping)
        return (yield from super()._expand(fused, scope, query, names))


class Retrieval(RetrievalEngine):
    """:class:`RetrievalEngine` run on the sync stores (what :class:`kgmem.KGMem` uses).

    Args:
        graph, vectors, embedder: the shared backends.
        Others: see :class:`RetrievalEngine`.
    """

    def __init__(
        self,
        graph: GraphStore,
        vectors: VectorStore,
        embedder: Embedder,
        default_preset: str = "balanced",
        overrides: dict[str, Any] | None = None,
        *,
        query_ttl_hours: float = 168.0,
        thompson_seed: int | None = None,
        legs: Sequence[LegSpec] = DEFAULT_LEGS,
        overlay_ttl_hours: float = 24.0,
        concepts: ConceptExtractor | None = None,
        query_log_delay_ms: int = QUERY_LOG_DELAY_MS,
    ) -> None:
        super().__init__(
            default_preset,
            overrides,
            query_ttl_hours=query_ttl_hours,
            thompson_seed=thompson_seed,
            legs=legs,
            overlay_ttl_hours=overlay_ttl_hours,
            concepts=concepts,
            query_log_delay_ms=query_log_delay_ms,
        )
        self.graph = graph
        self.vectors = vectors
        self.embedder = embedder
        self.io = SyncIO(graph, vectors, embedder)

    search = synced(RetrievalEngine.search_op)
    context = synced(RetrievalEngine.context_op)
    feedback = synced(RetrievalEngine.feedback_op)
    end_session = synced(RetrievalEngine.end_session_op)
    expire_overlays = synced(RetrievalEngine.expire_overlays_op)
    close_session = synced(RetrievalEngine.close_session_op)

    def flush(self, timeout: float | None = 30.0) -> None:
        """Wait until every query of this process is stored (feedback from other processes needs it)."""
        self.io.flush(timeout)

    def close(self) -> None:
        self.io.close()

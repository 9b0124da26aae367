"""The learning engine: tool results in, error patterns, fixes and their confidence in the graph.

Per event batch the work is: plan (pure, :mod:`kgmem.learning.plan`) → one Neo4j
transaction (``learning/apply_events``: occurrences, observed fixes, confidence and
its propagation, closed failures) → for patterns and fixes seen for the first time
only: one embedding batch, Chroma upsert, neighbour search and ``SIMILAR_TO`` links
(``learning/link_similar``). A repeated error costs one round trip and no model call.

If Neo4j is unreachable (after the retries in :class:`~kgmem.graph.GraphStore`),
``tool_result`` does not raise into the agent's tool loop: the event goes to the
append-only spool and is replayed exactly once when Neo4j answers again. With
``learning.strict = true`` the error is raised instead.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import neo4j.exceptions
import numpy as np

from kgmem.config import LearningSettings
from kgmem.errors import BackendUnavailable, ValidationError
from kgmem.graph import GraphStore
from kgmem.learning.confidence import ConfidenceRules, rank_fixes
from kgmem.learning.models import BatchResult, FixOutcome, Observation, ToolEvent
from kgmem.learning.plan import (
    ERROR_KIND, FIX_KIND, ErrorDescriber, Prepared, fix_id, now_iso, open_failure_keys, plan_batch, prepare,
)
from kgmem.learning import matching
from kgmem.learning.matching import ErrorText
from kgmem.learning.similarity import decode_keys
from kgmem.learning.spool import Spool
from kgmem.retrieval.text import lucene_query
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
    """

    def __init__(self, graph: GraphStore, vectors: VectorStore, embedder: Embedder, settings: LearningSettings,
                 spool_dir: Path | None = None) -> None:
        self.graph = graph
        self.vectors = vectors
        self.embedder = embedder
        self.settings = settings
        self.rules = ConfidenceRules.from_settings(settings)
        self.describe = ErrorDescriber()
        self.spool = Spool(spool_dir) if spool_dir is not None else None
        self._offline_until = 0.0
        self._last_ok = float("-inf")
        self._replay_lock = threading.Lock()
        self._spool_maybe_pending = self.spool is not None and bool(self.spool.segments())

    # -- events ---------------------------------------------------------------------
    def tool_result(self, ns: str, tool: str, params: Mapping[str, Any] | None = None, *,
                    error: str | BaseException | None = None, session: str | None = None,
                    ts: str | None = None) -> Observation | None:
        """Record one tool outcome; on error return the observation with ranked fixes."""
        event = prepare(tool, params, error, session, ts)
        if event.message is None and event.session is None:
            return None  # a success outside any session teaches nothing: no round trip
        try:
            self._check_online()
            self._replay_if_due()
            errors, _ = self._apply(ns, [event], want_similar=True)
        except _UNREACHABLE as exc:
            return self._spool_or_raise(ns, [event], exc)[0]
        if event.message is None:
            return None
        return self._observation(errors[0])

    def tool_results(self, ns: str, events: Iterable[ToolEvent | Mapping[str, Any]], *,
                     index: bool = True) -> BatchResult:
        """Record many outcomes in order, in one transaction (bulk / backfill).

        With ``index=False`` new patterns are written to the graph only (``vector_pending``):
        no embeddings, no ``SIMILAR_TO`` links now — they are made on each pattern's next
        occurrence (or by a reindex). For the fastest backfill.
        """
        prepared = [_prepare_any(e, i) for i, e in enumerate(events)]
        if not prepared:
            return BatchResult(0, 0, 0, 0, 0)
        n_err = sum(1 for p in prepared if p.message is not None)
        try:
            self._check_online()
            self._replay_if_due()
            errors, resolved = self._apply(ns, prepared, index=index)
        except _UNREACHABLE as exc:
            self._spool_or_raise(ns, prepared, exc)
            return BatchResult(len(prepared), n_err, len(prepared) - n_err, 0, 0, spooled=len(prepared))
        new = len({row["id"] for row in errors if row["vector_pending"]})  # first seen (or vector not yet written)
        return BatchResult(len(prepared), n_err, len(prepared) - n_err, new, len(resolved))

    def resolve(self, ns: str, error: Observation | str, fix: str, success: bool = True, *,
                tool: str | None = None, source: str = "explicit") -> FixOutcome:
        """Record that ``fix`` was applied to ``error`` and worked (or not).

        ``error`` is an :class:`Observation`, an error id, or an error message (then
        ``tool`` is required). Raises :class:`BackendUnavailable` if Neo4j is down.
        """
        if not isinstance(fix, str) or not fix.strip():
            raise ValidationError("fix: must be a non-empty string")
        if not isinstance(success, bool):
            raise ValidationError("success: must be true or false")
        info = self._error_info(ns, error, tool)
        description = fix.strip()
        outcome = {"error_id": info["id"], "tool": info["tool"], "pattern": info["pattern"],
                   "signature": info["signature"], "keys": info["keys"], "category": info["category"],
                   "template": info.get("template") or "",
                   "fix_id": fix_id(ns, description), "description": description, "source": source,
                   "success": success, "at": now_iso()}
        rows = self.graph.write("learning/apply_events", **self._params(ns, [], [outcome], []))
        resolved = rows[0]["resolved"]
        try:
            self._index(ns, [], resolved, [])
        except Exception as exc:  # noqa: BLE001 - committed; raising would invite a double-counting retry
            if self.settings.strict:
                raise
            log.warning("vector indexing of a new fix failed (repaired later): %s", exc)
        row = resolved[0]
        return FixOutcome(row["error_id"], row["fix_id"], row["description"], float(row["confidence"]),
                          int(row["successes"]), int(row["failures"]), int(row["propagated"]))

    def index_pending(self, ns: str, batch: int = 500) -> int:
        """Embed and link every error pattern still waiting for its vector (after
        ``tool_results(index=False)`` or a Chroma failure); returns how many were indexed."""
        total = 0
        while True:
            rows = [r for r in self.graph.read("learning/pending_errors", ns=ns, limit=batch) if r["signature"]]
            if not rows:
                return total
            self._index(ns, rows, [], [])
            total += len(rows)

    # -- spool ----------------------------------------------------------------------
    def replay_spool(self) -> int:
        """Replay spooled events into the graph, exactly once; returns how many were replayed."""
        if self.spool is None:
            return 0
        total = 0
        with self._replay_lock:
            self.spool.rotate()
            for path in self.spool.segments():
                with self.spool.claim(path) as events:
                    if events is not None:
                        total += self._replay_segment(path, events)
            self._spool_maybe_pending = bool(self.spool.segments())
        if total:
            log.info("replayed %d spooled learning events", total)
        return total

    def _replay_segment(self, path: Path, events: list[dict[str, Any]]) -> int:
        segment = path.name
        for _ in range(3):  # a concurrent replayer moved the cursor: re-read it and go on
            cursor = int(self.graph.read("learning/spool_cursor", segment=segment)[0]["seq"])
            todo = [e for e in events if int(e["seq"]) > cursor]
            done = cursor
            for ns, run in _runs_by_ns(todo):
                last = int(run[-1]["seq"])
                rows = self.graph.write("learning/apply_events", **self._params(
                    ns, *self._plan(ns, [Prepared.from_json(e) for e in run])[1:],
                    segment=segment, expected=done, upto=last))
                if not rows:
                    break
                done = last
                try:
                    self._index(ns, rows[0]["errors"], rows[0]["resolved"], [])
                except Exception as exc:  # noqa: BLE001 - committed and counted; vectors repaired later
                    log.warning("vector indexing after spool replay failed (repaired later): %s", exc)
            else:
                self.spool.retire(path, len(todo))  # type: ignore[union-attr]
                return len(todo)
        log.warning("spool segment %s: cursor kept moving; leaving it for the next replay", segment)
        return 0

    def _check_online(self) -> None:
        now = time.monotonic()
        if now < self._offline_until:
            raise BackendUnavailable("Neo4j was unreachable moments ago; not retrying yet")
        if now - self._last_ok > _PROBE_AFTER_S:
            self.graph.ping()
            self._last_ok = now

    def _replay_if_due(self) -> None:
        if self._spool_maybe_pending and time.monotonic() >= self._offline_until:
            try:
                self.replay_spool()
            except _UNREACHABLE:
                raise
            except Exception:  # noqa: BLE001 - a bad segment must not break the agent's tool loop
                self._spool_maybe_pending = False
                log.exception("spool replay failed; segments are kept for `KGMem.replay_spool()`")

    def _spool_or_raise(self, ns: str, events: Sequence[Prepared], exc: Exception) -> list[Observation | None]:
        if self.settings.strict or self.spool is None:
            raise exc if isinstance(exc, BackendUnavailable) else BackendUnavailable(str(exc))
        self._offline_until = time.monotonic() + self.settings.offline_retry_s
        try:
            self.spool.append([e.to_json(0, ns) for e in events])
        except OSError as write_error:  # the disk failed too: count the drop, never raise into the agent
            self.spool.bump(dropped=len(events))
            log.error("learning event(s) dropped: Neo4j unreachable (%s) and spool write failed (%s)",
                      exc, write_error)
        else:
            self._spool_maybe_pending = True
            log.warning("Neo4j unreachable (%s); %d learning event(s) spooled for replay", exc, len(events))
        out: list[Observation | None] = []
        for e in events:
            if e.message is None:
                out.append(None)
                continue
            info = self.describe(ns, e.tool, e.message, e.exc_types)
            out.append(Observation(info.id, e.tool, info.category, info.pattern, 0, False, (), spooled=True))
        return out

    # -- graph + vectors --------------------------------------------------------------
    def _plan(self, ns: str, events: Sequence[Prepared]) -> tuple[Any, list, list, list]:
        pairs = open_failure_keys(ns, events)
        open_rows: dict[tuple[str, str], list[dict[str, Any]]] = {}
        if pairs:
            for row in self.graph.read("learning/open_failures", ns=ns, pairs=pairs):
                open_rows.setdefault((row["session_id"], row["tool"]), []).append(row)
        plan = plan_batch(ns, events, self.settings.example_max_chars, open_rows, self.describe)
        return plan, plan.errors, plan.outcomes, plan.closes

    def _apply(self, ns: str, events: Sequence[Prepared], want_similar: bool = False,
               index: bool = True) -> tuple[list, list]:
        plan, errors, outcomes, closes = self._plan(ns, events)
        if not (errors or outcomes or closes):
            return [], []  # successes with no open failure: nothing to write
        rows = self.graph.write("learning/apply_events", **self._params(ns, errors, outcomes, closes))
        self._last_ok = time.monotonic()
        result_errors, resolved = rows[0]["errors"], rows[0]["resolved"]
        counts = {(r["id"]): r["count"] for r in errors}
        for row in result_errors:
            row["count"] = counts.get(row["id"], 0)
        want = [r["id"] for r in result_errors if r["vector_pending"]] if want_similar else []
        try:
            similar = self._index(ns, result_errors, resolved, want) if index else {}
        except Exception as exc:  # noqa: BLE001 - the event is committed; vectors are repaired next time
            if self.settings.strict:
                raise
            log.warning("vector indexing of new learning nodes failed (repaired on next occurrence): %s", exc)
            similar = {}
        for row in result_errors:
            row["similar"] = list(row["similar"]) + similar.get(row["id"], [])
        return result_errors, resolved

    def _params(self, ns: str, errors: list, outcomes: list, closes: list, segment: str | None = None,
                expected: int = -1, upto: int = -1) -> dict[str, Any]:
        return {"ns": ns, "now": now_iso(), "segment": segment, "expected": expected, "upto": upto,
                "errors": errors, "outcomes": outcomes, "closes": closes, **self.rules.cypher_params()}

    def _index(self, ns: str, errors: list[dict[str, Any]], resolved: list[dict[str, Any]],
               want: list[str]) -> dict[str, list[dict[str, Any]]]:
        """Embed and link what is new (vector_pending); return similar fixes for ``want`` ids."""
        new_errors: dict[str, dict[str, Any]] = {r["id"]: r for r in errors if r["vector_pending"]}
        for r in resolved:
            if r.get("error_pending") and r["error_id"] not in new_errors and r.get("signature"):
                new_errors[r["error_id"]] = {"id": r["error_id"], "signature": r["signature"], "keys": r["keys"],
                                             "tool": r["tool"], "category": r["category"],
                                             "template": r.get("template") or ""}
        new_fixes = {r["fix_id"]: r for r in resolved if r.get("fix_pending")}
        if not new_errors and not new_fixes:
            return {}
        err_rows, fix_rows = list(new_errors.values()), list(new_fixes.values())
        texts = [r["signature"] or "" for r in err_rows] + [r["description"] for r in fix_rows]
        vectors = self.embedder.embed(texts)
        err_vecs, fix_vecs = vectors[: len(err_rows)], vectors[len(err_rows):]
        links: list[dict[str, Any]] = []
        if err_rows:
            self.vectors.upsert(ns, ERROR_KIND, [r["id"] for r in err_rows], err_vecs,
                                [r["signature"] for r in err_rows],
                                [{"tool": r["tool"], "category": r["category"], "keys": r["keys"] or "",
                                  "template": r.get("template") or ""} for r in err_rows])
            links = self._neighbours(ns, err_rows, err_vecs)
        if fix_rows:
            self.vectors.upsert(ns, FIX_KIND, [r["fix_id"] for r in fix_rows], fix_vecs,
                                [r["description"] for r in fix_rows],
                                [{"source": r["source"] or "", "error_id": r["error_id"]} for r in fix_rows])
        rows = self.graph.write("learning/link_similar", ns=ns, now=now_iso(), links=links,
                                error_ids=[r["id"] for r in err_rows], fix_ids=[r["fix_id"] for r in fix_rows],
                                ids=want)
        return {r["id"]: r["similar"] for r in rows}

    def _neighbours(self, ns: str, rows: list[dict[str, Any]], vectors: Any) -> list[dict[str, Any]]:
        """SIMILAR_TO links for new patterns: candidates from the template index, BM25 over the
        patterns and the vector leg; each scored by :func:`~kgmem.learning.matching.match_score`
        (identity guard first), linked when the score reaches the calibrated threshold."""
        k = self.settings.similar_neighbours
        if k == 0:
            return []
        collection = self.vectors.collection(ns, ERROR_KIND, create=False)
        if collection is None or collection.count() < 2:
            return []
        # {own id: {candidate id: (cosine or None, {"template", "keys"})}}
        cands = self._vector_leg(collection, rows, vectors, k)
        for c in self.graph.read("learning/match_candidates", **self._candidate_params(ns, rows, k)):
            per = cands.setdefault(c["id"], {})
            if c["candidate"] not in per:
                per[c["candidate"]] = (None, {"template": c["template"], "keys": c["keys"]})
        unseen = sorted({cid for per in cands.values() for cid, (cos, _) in per.items() if cos is None})
        stored = _stored_vectors(collection, unseen)
        model = matching.DEFAULT_MODEL
        links: dict[tuple[str, str], float] = {}
        for i, own in enumerate(rows):
            mine = ErrorText(own.get("template") or "", decode_keys(own["keys"] or ""))
            for cid, (cos, meta) in cands.get(own["id"], {}).items():
                if cid == own["id"] or (cos is None and cid not in stored):
                    continue  # no vector yet (vector_pending): linked when it is indexed
                cosine = cos if cos is not None else float(np.dot(vectors[i], stored[cid]))
                other = ErrorText(meta.get("template") or "", decode_keys(meta.get("keys") or ""))
                score = matching.match_score(mine, other, cosine, model)
                if score is None or score < model.threshold:
                    continue
                pair = (min(own["id"], cid), max(own["id"], cid))
                links[pair] = max(links.get(pair, 0.0), round(score, 6))
        return [{"a": a, "b": b, "score": s} for (a, b), s in links.items()]

    def _vector_leg(self, collection: Any, rows: list[dict[str, Any]], vectors: Any,
                    k: int) -> dict[str, dict[str, tuple[float | None, dict[str, Any]]]]:
        """Top-k neighbours by cosine (same tool unless ``similar_across_tools``), with their metadata."""
        out: dict[str, dict[str, tuple[float | None, dict[str, Any]]]] = {}
        groups: dict[str | None, list[int]] = {}
        for i, row in enumerate(rows):
            groups.setdefault(None if self.settings.similar_across_tools else row["tool"], []).append(i)
        for tool, idx in groups.items():
            res = collection.query(query_embeddings=vectors[idx], n_results=k + 1,
                                   where={"tool": tool} if tool is not None else None,
                                   include=["distances", "metadatas"])
            for j, i in enumerate(idx):
                out[rows[i]["id"]] = {hit: (1.0 - float(d), dict(m or {})) for hit, d, m in
                                      zip(res["ids"][j], res["distances"][j], res["metadatas"][j])}
        return out

    def _candidate_params(self, ns: str, rows: list[dict[str, Any]], k: int) -> dict[str, Any]:
        return {"ns": ns, "index": _FULLTEXT_INDEX, "across_tools": self.settings.similar_across_tools,
                "template_limit": k, "fulltext_limit": k,
                "rows": [{"id": r["id"], "tool": r["tool"], "template": r.get("template") or "",
                          "query": lucene_query(" ".join((r.get("template") or r["signature"] or "").split()[:_BM25_TERMS]),
                                                ns)}
                         for r in rows]}

    # -- helpers ----------------------------------------------------------------------
    def _observation(self, row: Mapping[str, Any]) -> Observation:
        fixes = rank_fixes(row["direct"], row["similar"], self.rules.auto_apply)
        return Observation(id=row["id"], tool=row["tool"], category=row["category"], pattern=row.get("pattern", ""),
                           occurrences=int(row["occurrences"]), is_new=row["occurrences"] == row["count"],
                           fixes=fixes)

    def _error_info(self, ns: str, error: Observation | str, tool: str | None) -> dict[str, Any]:
        if isinstance(error, Observation):
            error = error.id
        if not isinstance(error, str) or not error.strip():
            raise ValidationError("error: must be an Observation, an error id or an error message")
        if tool is None and len(error) == 32 and set(error) <= _ID_CHARS:
            rows = self.graph.read("learning/error_by_id", ns=ns, id=error)
            if not rows:
                raise ValidationError(f"error: no error pattern with id {error!r} in namespace {ns!r}")
            return rows[0]
        if tool is None or not isinstance(tool, str) or not tool.strip():
            raise ValidationError("tool: required when error is given as a message")
        info = self.describe(ns, tool.strip(), error)
        return {"id": info.id, "tool": tool.strip(), "pattern": info.pattern, "signature": info.signature,
                "keys": info.keys, "category": info.category, "template": info.template}


def _prepare_any(event: ToolEvent | Mapping[str, Any], index: int) -> Prepared:
    try:
        if isinstance(event, ToolEvent):
            return prepare(event.tool, event.params, event.error, event.session, event.ts)
        if isinstance(event, Mapping):
            unknown = set(event) - {"tool", "params", "error", "result", "session", "ts"}
            if unknown:
                raise ValidationError(f"unknown field(s) {sorted(unknown)}")
            return prepare(event.get("tool"), event.get("params"), event.get("error"), event.get("session"),
                           event.get("ts"))
    except ValidationError as exc:
        raise ValidationError(f"events[{index}].{exc}") from exc
    raise ValidationError(f"events[{index}]: must be a ToolEvent or a mapping; got {type(event).__name__}")


def _stored_vectors(collection: Any, ids: list[str]) -> dict[str, Any]:
    """Vectors of known patterns found by the graph legs only (one Chroma get)."""
    if not ids:
        return {}
    res = collection.get(ids=ids, include=["embeddings"])
    embeddings = res.get("embeddings")
    if embeddings is None:
        return {}
    return {hit: np.asarray(embeddings[n], dtype=np.float32) for n, hit in enumerate(res["ids"])}


def _runs_by_ns(events: Sequence[Mapping[str, Any]]) -> Iterable[tuple[str, list[Mapping[str, Any]]]]:
    run: list[Mapping[str, Any]] = []
    for event in events:
        if run and event["ns"] != run[-1]["ns"]:
            yield run[-1]["ns"], run
            run = []
        run.append(event)
    if run:
        yield run[-1]["ns"], run

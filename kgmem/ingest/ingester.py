"""Bulk ingest: a JSONL file (or any iterable of events) into the graph and vectors.

Turns are written in batches through :class:`~kgmem.conversation.TurnStore` (one UNWIND
transaction + one embedding batch + one Chroma upsert per batch). Tool results go to the
learning engine, knowledge to the analysis engineer's knowledge store — through the same
engines the ``KGMem`` client calls (:class:`IngestEngines`; the client is one), so ingest
does exactly what the matching Python calls do without depending on the client.

Exactly once, whatever fails when:

- Turns have deterministic ids (re-writing one adds nothing).
- Tool results and knowledge lines count (occurrences, ``times_seen``), so each carries an
  *ingest key* (:func:`event_key`) that is written as an ``IngestedEvent`` mark **in the same
  transaction** as its effect, guarded so a statement whose marks already exist writes nothing.
  A crash before the commit leaves neither; after it, both. A re-run reads the marks and skips.
- Ingest never spools: if Neo4j becomes unreachable the batch's transaction is gone and the run
  stops with :class:`~kgmem.errors.IngestInterrupted`; running the same command again continues.

A bad line never costs its neighbours: lines are validated one by one (``FILE:LINE: reason``),
and if Neo4j still rejects a batch the batch is retried line by line so only the culprit is
reported and every valid line lands.
"""

from __future__ import annotations

import itertools
import logging
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

import neo4j.exceptions

from kgmem.conversation import Turn
from kgmem.errors import AlreadyApplied, BackendUnavailable, IngestInterrupted, KGMemError, ValidationError
from kgmem.ids import node_id
from kgmem.ingest.events import Event, KnowledgeEvent, SessionEndEvent, ToolResultEvent, parse_event, parse_line
from kgmem.runner import LocalIO, Op, Read, SyncIO, Write, run

if TYPE_CHECKING:
    from kgmem.analysis import AnalysisService
    from kgmem.conversation import TurnStore
    from kgmem.learning import LearningEngine


class IngestEngines(Protocol):
    """The engines ingest writes through (``KGMem`` and ``AsyncKGMem`` have them; so can any
    composition). The graph, vector store and embedder are what :func:`ingest` runs on (sync).
    Read-only: the clients expose them as properties."""

    @property
    def graph(self) -> Any: ...
    @property
    def vectors(self) -> Any: ...
    @property
    def embedder(self) -> Any: ...
    @property
    def turns(self) -> TurnStore: ...
    @property
    def analysis(self) -> AnalysisService: ...
    @property
    def learning(self) -> LearningEngine: ...


log = logging.getLogger(__name__)

DEFAULT_BATCH = 256
# Backend trouble (not the data's fault): stop the run instead of blaming lines. A transient error
# that outlived the driver's own retries (e.g. the database still starting) counts as such.
_UNREACHABLE = (BackendUnavailable, neo4j.exceptions.DriverError, neo4j.exceptions.TransientError, OSError)
_GUARD_RETRIES = 3  # another writer marked some of our keys in between: re-read the marks, retry

E = TypeVar("E")


@dataclass(frozen=True)
class LineError:
    """A rejected event: 1-based line (or item) number and why."""

    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


@dataclass
class IngestReport:
    """What one ingest did."""

    events: int = 0
    turns: int = 0
    turns_new: int = 0
    tool_results: int = 0
    knowledge: int = 0
    sessions_ended: int = 0
    already_ingested: int = 0
    errors: list[LineError] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.errors

    def summary(self) -> str:
        rate = self.turns / self.seconds if self.seconds > 0 else 0.0
        return (
            f"{self.events} events: {self.turns} turns ({self.turns_new} new), {self.tool_results} tool results, "
            f"{self.knowledge} knowledge, {self.sessions_ended} sessions ended, "
            f"{self.already_ingested} already ingested, {len(self.errors)} rejected "
            f"in {self.seconds:.1f}s ({rate:.0f} turns/s)"
        )


@dataclass(frozen=True)
class Numbered(Generic[E]):
    """An event with its line number and (tool results, knowledge) its ingest key."""

    line: int
    event: E
    key: str = ""


def event_key(ns: str, event: ToolResultEvent | KnowledgeEvent, occurrence: int) -> str:
    """The ingest key of a counting event (the id of its ``IngestedEvent`` mark).

    An explicit ``"id"`` is the key. Otherwise the key is the line's content hash plus its
    occurrence number among identical lines of this input (the first keeps the bare hash, as
    before occurrence numbers existed), so identical lines are distinct events, the count does
    not depend on the batch size, and re-running the same input gives the same keys.
    """
    if event.event_id is not None:
        return node_id(ns, "ingest", "id", event.event_id)
    if occurrence == 0:
        return node_id(ns, "ingest", event.key)
    return node_id(ns, "ingest", event.key, str(occurrence))


class Ingester:
    """Applies events in batches for one namespace.

    Every step is an operation (:mod:`kgmem.runner`) over the engines' own operations, so
    ``KGMem.ingest`` runs it on the sync stores and ``AsyncKGMem.ingest`` on the async ones.

    Args:
        mem: the client whose engines receive the events.
        ns: target namespace.
        batch_size: events per transaction / embedding batch (per kind).
        analyze: also feed turns and session ends to conversation analysis (off by default:
            a bulk import of history would queue an analysis per few turns).
    """

    def __init__(self, mem: IngestEngines, ns: str, batch_size: int = DEFAULT_BATCH, analyze: bool = False) -> None:
        if batch_size < 1:
            raise ValidationError("batch_size: must be >= 1")
        self.mem = mem
        self.ns = ns
        self.batch_size = batch_size
        self.analyze = analyze
        self._turns: list[Numbered[Turn]] = []
        self._tools: list[Numbered[ToolResultEvent]] = []
        self._knowledge: list[Numbered[KnowledgeEvent]] = []
        self._ends: list[Numbered[str]] = []
        self._occurrences: Counter[str] = Counter()
        self._last_line = 0

    def run_op(
        self, numbered: Iterable[tuple[int, Event | Exception | None]], report: IngestReport
    ) -> Op[IngestReport]:
        """Apply ``(line number, event or parse error)`` pairs; returns ``report`` filled in.

        ``numbered`` is read in chunks by :class:`~kgmem.runner.LocalIO` requests (a file: off the
        event loop). Raises :class:`IngestInterrupted` (with what was done so far) if Neo4j becomes
        unreachable."""
        start = time.perf_counter()
        lines = iter(numbered)
        try:
            while True:
                chunk = yield LocalIO(_take, (lines, self.batch_size))
                if not chunk:
                    break
                for number, item in chunk:
                    self._last_line = number
                    if item is None:
                        continue
                    if isinstance(item, Exception):
                        report.errors.append(LineError(number, str(item)))
                        log.warning("ingest: line %d rejected: %s", number, item)
                        continue
                    report.events += 1
                    yield from self._add(number, item, report)
            yield from self._flush_all(report)
        except _UNREACHABLE as exc:
            report.seconds = time.perf_counter() - start
            raise IngestInterrupted(
                f"Neo4j became unreachable (read up to line {self._last_line}): {exc}. Everything stored so far "
                f"is marked: run the same ingest again to store the rest — nothing is counted twice. "
                f"So far: {report.summary()}"
            ) from exc
        report.seconds = time.perf_counter() - start
        return report

    # -- batching ---------------------------------------------------------------------
    def _add(self, line: int, event: Event, report: IngestReport) -> Op[None]:
        if isinstance(event, Turn):
            self._turns.append(Numbered(line, event))
            if len(self._turns) >= self.batch_size:
                yield from self._flush_turns(report)
        elif isinstance(event, ToolResultEvent):
            self._tools.append(Numbered(line, event, self._key(event)))
            if len(self._tools) >= self.batch_size:
                yield from self._flush_tools(report)
        elif isinstance(event, KnowledgeEvent):
            self._knowledge.append(Numbered(line, event, self._key(event)))
            if len(self._knowledge) >= self.batch_size:
                yield from self._flush_knowledge(report)
        elif isinstance(event, SessionEndEvent):
            # Everything said in the session must be stored before it ends: the end is applied
            # right after the batch holding its last turns (not by flushing a small batch now).
            self._ends.append(Numbered(line, event.session))
            if not self._turns:
                yield from self._apply_ends(report)

    def _key(self, event: ToolResultEvent | KnowledgeEvent) -> str:
        if event.event_id is not None:
            return event_key(self.ns, event, 0)
        occurrence = self._occurrences[event.key]
        self._occurrences[event.key] += 1
        return event_key(self.ns, event, occurrence)

    def _flush_all(self, report: IngestReport) -> Op[None]:
        yield from self._flush_turns(report)
        yield from self._apply_ends(report)
        yield from self._flush_tools(report)
        yield from self._flush_knowledge(report)

    def _flush_turns(self, report: IngestReport) -> Op[None]:
        if not self._turns:
            return
        batch, self._turns = self._turns, []

        def apply(items: Sequence[Numbered[Turn]]) -> Op[None]:
            turns = [n.event for n in items]
            recorded = yield from self.mem.turns.record_batch_op(self.ns, turns)
            report.turns_new += recorded.created
            report.turns += len(turns)
            if self.analyze:
                for t in turns:
                    self.mem.analysis.observe(self.ns, t.session, t.role, t.text, t.ts)

        yield from _isolating(batch, apply, report)
        yield from self._apply_ends(report)

    def _apply_ends(self, report: IngestReport) -> Op[None]:
        ends, self._ends = self._ends, []
        for end in ends:
            yield from self._flush_tools(report)  # tool results reported before the end belong to the session

            def apply(items: Sequence[Numbered[str]]) -> Op[None]:
                yield from self.mem.turns.end_session_op(self.ns, items[0].event)
                if self.analyze:
                    self.mem.analysis.end_session(self.ns, items[0].event)
                report.sessions_ended += 1

            yield from _isolating([end], apply, report)

    def _flush_tools(self, report: IngestReport) -> Op[None]:
        if not self._tools:
            return
        batch, self._tools = self._tools, []

        def apply(items: Sequence[Numbered[ToolResultEvent]]) -> Op[None]:
            # The learning engine's batch call: one transaction, in order (success-after-error needs it),
            # the marks inside it; never spooled (see the module docstring).
            yield from self.mem.learning.tool_results_op(
                self.ns, [_tool_event(n.event) for n in items], marks=[n.key for n in items], spool=False
            )
            report.tool_results += len(items)

        yield from self._apply_marked(batch, "tool_result", apply, report)

    def _flush_knowledge(self, report: IngestReport) -> Op[None]:
        if not self._knowledge:
            return
        batch, self._knowledge = self._knowledge, []
        from kgmem.analysis.schema import ExtractedItem

        store = self.mem.analysis.store

        def apply(items: Sequence[Numbered[KnowledgeEvent]]) -> Op[None]:
            # One store batch per session and statement time: every item of a batch is valid from its time.
            by_session: dict[tuple[str, str | None], list[Numbered[KnowledgeEvent]]] = {}
            for n in items:
                e = n.event
                if e.manual:  # idempotent by itself (manual items are not counted)
                    yield from self.mem.analysis.curator.add_op(self.ns, e.knowledge_type, e.content)
                    report.knowledge += 1
                else:
                    by_session.setdefault((e.session or "ingest", e.ts), []).append(n)
            for (session, ts), group in by_session.items():
                extracted = []
                for n in group:
                    subject, predicate, obj = n.event.triple or (None, None, None)
                    extracted.append(
                        ExtractedItem(
                            type=n.event.knowledge_type,
                            content=n.event.content,
                            confidence=n.event.confidence,
                            subject=subject,
                            predicate=predicate,
                            object=obj,
                        )
                    )
                yield from store.apply_op(
                    self.ns, session, extracted, source="ingest", marks=[n.key for n in group], said_at=ts
                )
                report.knowledge += len(group)

        yield from self._apply_marked(batch, "knowledge", apply, report)

    def _apply_marked(
        self,
        batch: list[Numbered[Any]],
        kind: str,
        apply: Callable[[Sequence[Numbered[Any]]], Op[None]],
        report: IngestReport,
    ) -> Op[None]:
        """Apply the events whose keys are not marked yet; mark them (idempotently) afterwards too,
        for events that wrote nothing of their own (a success with no open failure, a skipped item)."""
        for _ in range(_GUARD_RETRIES):
            fresh = yield from self._unmarked(batch)
            if not fresh:
                break
            rejected_before = len(report.errors)
            try:
                yield from _isolating(fresh, apply, report)
            except AlreadyApplied:
                del report.errors[rejected_before:]
                continue  # another writer got some of them first: re-read the marks
            rejected = {e.line for e in report.errors[rejected_before:]}  # not marked: a re-run names them again
            yield Write(
                "ingest/mark_events",
                dict(
                    ns=self.ns,
                    now=datetime.now(UTC).isoformat(),
                    events=[{"id": n.key, "type": kind, "source": "ingest"} for n in fresh if n.line not in rejected],
                ),
            )
            break
        else:
            raise KGMemError(
                f"ingest: the marks of lines {batch[0].line}-{batch[-1].line} kept changing "
                "(is another ingest of the same input running?)"
            )
        report.already_ingested += len(batch) - len(fresh)

    def _unmarked(self, batch: list[Numbered[Any]]) -> Op[list[Numbered[Any]]]:
        keys = list(dict.fromkeys(n.key for n in batch))
        seen = {r["id"] for r in (yield Read("ingest/seen_events", dict(ns=self.ns, ids=keys)))}
        fresh: list[Numbered[Any]] = []
        for n in batch:  # the same explicit id twice in one batch: the first one is the event
            if n.key not in seen:
                seen.add(n.key)
                fresh.append(n)
        return fresh


def _take(lines: Iterator[tuple[int, Any]], n: int) -> list[tuple[int, Any]]:
    """Up to ``n`` more items of ``lines`` (empty at the end)."""
    return list(itertools.islice(lines, n))


def _isolating(
    items: Sequence[Numbered[E]], apply: Callable[[Sequence[Numbered[E]]], Op[None]], report: IngestReport
) -> Op[None]:
    """``apply(items)``; if Neo4j (or a store) rejects the batch for its data, apply the items one
    by one so only the bad lines are reported and every other line lands. Unreachable-backend
    errors and guard conflicts propagate (the caller stops or re-reads the marks)."""
    try:
        yield from apply(items)
        return
    except (*_UNREACHABLE, AlreadyApplied):
        raise
    except Exception as exc:  # noqa: BLE001 - a data error in this batch: find the line(s)
        if len(items) == 1:
            report.errors.append(LineError(items[0].line, _reason(exc)))
            log.warning("ingest: line %d rejected: %s", items[0].line, _reason(exc))
            return
        log.info(
            "ingest: batch of lines %d-%d rejected (%s); retrying line by line",
            items[0].line,
            items[-1].line,
            _reason(exc),
        )
    for item in items:
        yield from _isolating([item], apply, report)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, neo4j.exceptions.Neo4jError):
        text = exc.message or str(exc)
        return f"rejected by Neo4j ({exc.code}): {text.splitlines()[0][:300] if text else ''}"
    return str(exc).splitlines()[0][:300] if str(exc) else type(exc).__name__


def _tool_event(e: ToolResultEvent):  # -> kgmem.learning.ToolEvent
    from kgmem.learning.models import ToolEvent

    return ToolEvent(tool=e.tool, params=e.params, error=e.error, result=e.result, session=e.session, ts=e.ts)


def numbered_lines(path: Path, progress: bool = False) -> Iterator[tuple[int, Event | Exception | None]]:
    """``(line number, event | error | None)`` for every line of a JSONL file.

    Lines are decoded one by one, so a line that is not UTF-8 is reported and skipped alone.
    """
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise ValidationError(f"path: cannot read {path}: {exc.strerror}") from exc
    with handle:
        bar = None
        if progress:
            from tqdm import tqdm

            bar = tqdm(total=path.stat().st_size, unit="B", unit_scale=True, desc=f"ingest {path.name}")
        for number, raw in enumerate(handle, start=1):
            if bar is not None:
                bar.update(len(raw))
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                yield number, ValidationError(f"not UTF-8 (byte 0x{raw[exc.start]:02x} at column {exc.start + 1})")
                continue
            try:
                yield number, parse_line(line)
            except KGMemError as exc:
                yield number, exc
            except Exception as exc:  # noqa: BLE001 - pydantic & co: report the line, keep going
                yield number, ValidationError(str(exc))
        if bar is not None:
            bar.close()


def numbered_events(events: Iterable[Any]) -> Iterator[tuple[int, Event | Exception | None]]:
    """``(item number, event | error)`` for an iterable of dicts / :class:`Turn` objects."""
    for number, raw in enumerate(events, start=1):
        try:
            yield number, raw if isinstance(raw, Turn) else parse_event(raw)
        except KGMemError as exc:
            yield number, exc
        except Exception as exc:  # noqa: BLE001
            yield number, ValidationError(str(exc))


def ingest(
    mem: IngestEngines,
    source: str | Path | Iterable[Any],
    ns: str,
    batch_size: int = DEFAULT_BATCH,
    progress: bool = False,
    analyze: bool = False,
) -> IngestReport:
    """Ingest a JSONL file path or an iterable of event dicts into namespace ``ns`` (``mem``'s sync
    stores: ``graph``, ``vectors``, ``embedder``)."""
    io = SyncIO(mem.graph, mem.vectors, mem.embedder)
    try:
        return run(ingest_op(mem, source, ns, batch_size, progress, analyze), io)
    finally:
        io.close()


def ingest_op(
    mem: IngestEngines,
    source: str | Path | Iterable[Any],
    ns: str,
    batch_size: int = DEFAULT_BATCH,
    progress: bool = False,
    analyze: bool = False,
) -> Op[IngestReport]:
    """:func:`ingest` as an operation (kgmem.runner): ``AsyncKGMem.ingest`` runs it on its async stores."""
    numbered = numbered_lines(Path(source), progress) if isinstance(source, (str, Path)) else numbered_events(source)
    return (yield from Ingester(mem, ns, batch_size, analyze).run_op(numbered, IngestReport()))

"""Bulk ingest: a JSONL file (or any iterable of events) into the graph and vectors.

Turns are written in batches through :class:`~kgmem.conversation.TurnStore` (one UNWIND
transaction + one embedding batch + one Chroma upsert per batch). Tool results go to the
learning engine, knowledge to the analysis engineer's knowledge store — through the same
engines the ``KGMem`` client calls (:class:`IngestEngines`; the client is one), so ingest
does exactly what the matching Python calls do without depending on the client.

Re-running an ingest adds nothing: turns and knowledge have deterministic ids / exact-text
dedup, and tool results (which count occurrences) are marked as ingested by content hash.
A malformed line is reported with its number; every valid line still lands.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from kgmem.conversation import Turn
from kgmem.errors import KGMemError, ValidationError
from kgmem.ids import node_id
from kgmem.ingest.events import Event, KnowledgeEvent, SessionEndEvent, ToolResultEvent, parse_event, parse_line

if TYPE_CHECKING:
    from kgmem.analysis import AnalysisService
    from kgmem.conversation import TurnStore
    from kgmem.graph import GraphStore
    from kgmem.learning import LearningEngine


class IngestEngines(Protocol):
    """The engines ingest writes through (``KGMem`` has them; so can any composition)."""

    graph: "GraphStore"
    turns: "TurnStore"
    analysis: "AnalysisService"
    learning: "LearningEngine"

log = logging.getLogger(__name__)

DEFAULT_BATCH = 256


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
        return (f"{self.events} events: {self.turns} turns ({self.turns_new} new), {self.tool_results} tool results, "
                f"{self.knowledge} knowledge, {self.sessions_ended} sessions ended, "
                f"{self.already_ingested} tool results already ingested, {len(self.errors)} rejected "
                f"in {self.seconds:.1f}s ({rate:.0f} turns/s)")


class Ingester:
    """Applies events in batches for one namespace.

    Args:
        mem: the client whose stores receive the events.
        ns: target namespace.
        batch_size: turns per transaction / embedding batch.
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
        self._turns: list[Turn] = []
        self._tools: list[ToolResultEvent] = []
        self._knowledge: list[KnowledgeEvent] = []
        self._ends: list[str] = []

    def run(self, numbered: Iterable[tuple[int, Event | Exception | None]], report: IngestReport) -> IngestReport:
        """Apply ``(line number, event or parse error)`` pairs; returns ``report`` filled in."""
        start = time.perf_counter()
        for number, item in numbered:
            if item is None:
                continue
            if isinstance(item, Exception):
                report.errors.append(LineError(number, str(item)))
                log.warning("ingest: line %d rejected: %s", number, item)
                continue
            report.events += 1
            self._add(item, report)
        self._flush_all(report)
        report.seconds = time.perf_counter() - start
        return report

    # -- batching ---------------------------------------------------------------------
    def _add(self, event: Event, report: IngestReport) -> None:
        if isinstance(event, Turn):
            self._turns.append(event)
            if len(self._turns) >= self.batch_size:
                self._flush_turns(report)
        elif isinstance(event, ToolResultEvent):
            self._tools.append(event)
            if len(self._tools) >= self.batch_size:
                self._flush_tools(report)
        elif isinstance(event, KnowledgeEvent):
            self._knowledge.append(event)
            if len(self._knowledge) >= self.batch_size:
                self._flush_knowledge(report)
        elif isinstance(event, SessionEndEvent):
            # Everything said in the session must be stored before it ends: the end is applied
            # right after the batch holding its last turns (not by flushing a small batch now).
            self._ends.append(event.session)
            if not self._turns:
                self._apply_ends(report)

    def _flush_all(self, report: IngestReport) -> None:
        self._flush_turns(report)
        self._apply_ends(report)
        self._flush_tools(report)
        self._flush_knowledge(report)

    def _flush_turns(self, report: IngestReport) -> None:
        if not self._turns:
            return
        batch, self._turns = self._turns, []
        recorded = self.mem.turns.record_batch(self.ns, batch)
        report.turns_new += recorded.created
        if self.analyze:
            for t in batch:
                self.mem.analysis.observe(self.ns, t.session, t.role, t.text)
        report.turns += len(batch)
        self._apply_ends(report)

    def _apply_ends(self, report: IngestReport) -> None:
        ends, self._ends = self._ends, []
        for session in ends:
            self._flush_tools(report)  # tool results reported before the end belong to the session
            self.mem.turns.end_session(self.ns, session)
            if self.analyze:
                self.mem.analysis.end_session(self.ns, session)
            report.sessions_ended += 1

    def _flush_tools(self, report: IngestReport) -> None:
        if not self._tools:
            return
        batch, self._tools = self._tools, []
        keys = [node_id(self.ns, "ingest", e.key) for e in batch]
        seen = {r["id"] for r in self.mem.graph.read("ingest/seen_events", ns=self.ns, ids=keys)}
        fresh = [(k, e) for k, e in zip(keys, batch) if k not in seen]
        report.already_ingested += len(batch) - len(fresh)
        if fresh:
            # The learning engine's batch call: one transaction, in order (success-after-error needs it).
            self.mem.learning.tool_results(self.ns, [_tool_event(e) for _, e in fresh])
        if fresh:
            self.mem.graph.write(
                "ingest/mark_events", ns=self.ns, now=datetime.now(timezone.utc).isoformat(),
                events=[{"id": k, "type": "tool_result", "source": "ingest"} for k, _ in fresh],
            )
        report.tool_results += len(fresh)

    def _flush_knowledge(self, report: IngestReport) -> None:
        if not self._knowledge:
            return
        batch, self._knowledge = self._knowledge, []
        from kgmem.analysis.schema import ExtractedItem, normalise_text

        store = self.mem.analysis.store
        norms = [normalise_text(e.content) for e in batch]
        existing = {r["norm"] for r in store.graph.read("analysis/find_knowledge", ns=self.ns, norms=norms, ids=[])}
        by_session: dict[str, list[Any]] = {}
        for e, norm in zip(batch, norms):
            if norm in existing:  # re-running an ingest must not boost what it stored last time
                continue
            existing.add(norm)
            if e.manual:
                self.mem.analysis.curator.add(self.ns, e.knowledge_type, e.content)
                report.knowledge += 1
                continue
            subject, predicate, obj = e.triple or (None, None, None)
            item = ExtractedItem(type=e.knowledge_type, content=e.content, confidence=e.confidence,
                                 subject=subject, predicate=predicate, object=obj)
            by_session.setdefault(e.session or "ingest", []).append(item)
        for session, items in by_session.items():
            store.apply(self.ns, session, items, source="ingest")
            report.knowledge += len(items)


def _tool_event(e: ToolResultEvent):  # -> kgmem.learning.ToolEvent
    from kgmem.learning.models import ToolEvent

    return ToolEvent(tool=e.tool, params=e.params, error=e.error, result=e.result, session=e.session, ts=e.ts)


def numbered_lines(path: Path, progress: bool = False) -> Iterator[tuple[int, Event | Exception | None]]:
    """``(line number, event | error | None)`` for every line of a JSONL file."""
    try:
        handle = path.open("r", encoding="utf-8")
    except OSError as exc:
        raise ValidationError(f"path: cannot read {path}: {exc.strerror}") from exc
    with handle:
        bar = None
        if progress:
            from tqdm import tqdm

            bar = tqdm(total=path.stat().st_size, unit="B", unit_scale=True, desc=f"ingest {path.name}")
        for number, line in enumerate(handle, start=1):
            if bar is not None:
                bar.update(len(line.encode("utf-8")))
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


def ingest(mem: IngestEngines, source: str | Path | Iterable[Any], ns: str, batch_size: int = DEFAULT_BATCH,
           progress: bool = False, analyze: bool = False) -> IngestReport:
    """Ingest a JSONL file path or an iterable of event dicts into namespace ``ns``."""
    numbered = (numbered_lines(Path(source), progress) if isinstance(source, (str, Path))
                else numbered_events(source))
    return Ingester(mem, ns, batch_size, analyze).run(numbered, IngestReport())

"""The report library: every ``cypher/reports/*.cypher`` file, parsed and runnable by name."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kgmem import cypher
from kgmem.errors import ReportError
from kgmem.graph import GraphStore
from kgmem.reports.spec import ReportSpec, bind_params, parse_header
from kgmem.runner import LocalIO, Op, Read, SyncIO, run

log = logging.getLogger(__name__)

PREFIX = "reports"


@dataclass(frozen=True)
class ReportResult:
    """Rows of one report run, in the column order its header declares."""

    spec: ReportSpec
    params: dict[str, Any]
    rows: list[dict[str, Any]]

    @property
    def columns(self) -> list[str]:
        return self.spec.column_names


def list_reports() -> list[ReportSpec]:
    """Every report, sorted by name."""
    return [load_report(name.split("/", 1)[1]) for name in cypher.names(PREFIX)]


def load_report(name: str) -> ReportSpec:
    """The report called ``name``; :class:`ReportError` listing the known ones if there is none."""
    known = [n.split("/", 1)[1] for n in cypher.names(PREFIX)]
    if name not in known:
        raise ReportError(f"unknown report {name!r}; known reports: {', '.join(known)}")
    spec = parse_header(cypher.load(f"{PREFIX}/{name}"), f"{PREFIX}/{name}")
    if spec.name != name:
        raise ReportError(f"{PREFIX}/{name}.cypher: header name {spec.name!r} differs from the file name")
    return spec


def run_report(graph: GraphStore, name: str, params: Mapping[str, Any] | None = None) -> ReportResult:
    """Validate ``params`` against the header and run the report (one read transaction)."""
    return run(report_op(name, params), SyncIO(graph, None, None))


def report_op(name: str, params: Mapping[str, Any] | None = None) -> Op[ReportResult]:
    """:func:`run_report` as an operation (kgmem.runner): ``AsyncKGMem.report`` runs it on its async store."""
    spec = yield LocalIO(load_report, (name,))  # reads the report file: off the event loop
    bound = bind_params(spec, params or {})
    rows = yield Read(spec.cypher_name, bound)
    columns = spec.column_names
    missing = [c for c in columns if rows and c not in rows[0]]
    if missing:
        raise ReportError(f"report {name}: query does not return declared column(s) {', '.join(missing)}")
    ordered = [{c: row.get(c) for c in columns} for row in rows]
    log.info("report %s returned %d rows", name, len(ordered))
    return ReportResult(spec=spec, params=bound, rows=ordered)

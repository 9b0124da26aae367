"""Every report at once into a directory (`kgmem report --all -f FORMAT -o DIR`), for batch jobs
and dashboards: one file per report plus, for HTML, an ``index.html`` linking them."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from html import escape
from pathlib import Path
from typing import Any

from kgmem.errors import ReportParamError
from kgmem.graph import GraphStore
from kgmem.reports.library import list_reports, run_report
from kgmem.reports.render import render

log = logging.getLogger(__name__)

EXTENSIONS = {"table": "txt", "csv": "csv", "json": "json", "html": "html"}


@dataclass(frozen=True)
class Written:
    name: str
    description: str
    rows: int
    path: Path


def run_all(
    graph: GraphStore, ns: str, fmt: str, out_dir: Path, params: Mapping[str, Any] | None = None
) -> list[Written]:
    """Run every report for ``ns``; ``params`` go to each report that declares them (a name no
    report declares is an error). Returns what was written, in report order."""
    params = dict(params or {})
    specs = list_reports()
    declared = {p.name for s in specs for p in s.params}
    unknown = sorted(set(params) - declared)
    if unknown:
        raise ReportParamError(f"no report takes parameter(s) {', '.join(unknown)}")
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for spec in specs:
        mine = {k: v for k, v in params.items() if spec.param(k)}
        result = run_report(graph, spec.name, {**mine, "ns": ns})
        path = out_dir / f"{spec.name}.{EXTENSIONS[fmt]}"
        path.write_text(render(result, fmt), encoding="utf-8")
        written.append(Written(spec.name, spec.description, len(result.rows), path))
    if fmt == "html":
        (out_dir / "index.html").write_text(index_page(ns, written), encoding="utf-8")
    log.info("%d reports for %s written to %s", len(written), ns, out_dir)
    return written


def index_page(ns: str, written: list[Written]) -> str:
    """A self-contained page linking every report page (relative links: the directory can move)."""
    items = "".join(
        f'<tr><td><a href="{escape(w.path.name)}">{escape(w.name)}</a></td>'
        f"<td>{escape(w.description)}</td><td class=num>{w.rows}</td></tr>"
        for w in written
    )
    generated = datetime.now(UTC).isoformat(timespec="seconds")
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>kgmem reports: {escape(ns)}</title><style>"
        "body{font-family:'DejaVu Sans',Arial,sans-serif;margin:24px;color:#222}"
        "table{border-collapse:collapse;font-size:13px}th,td{border:1px solid #ccc;padding:4px 8px;text-align:left}"
        "th{background:#f0f0f0}td.num{text-align:right}</style></head><body>"
        f"<h1>kgmem reports — namespace {escape(ns)}</h1>"
        f"<table><thead><tr><th>report</th><th>what it answers</th><th>rows</th></tr></thead><tbody>{items}"
        f"</tbody></table><p><small>generated {generated}</small></p></body></html>\n"
    )

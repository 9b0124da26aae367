"""Report output as a text table, CSV or JSON (what batch jobs consume); HTML lives in ``html.py``."""

from __future__ import annotations

import csv
import io
import json
import re
from typing import Any

from kgmem.reports.cells import cell_text
from kgmem.reports.html import to_html
from kgmem.reports.library import ReportResult

FORMATS = ("table", "csv", "json", "html")
_MAX_CELL = 60
# C0 and C1 control characters and DEL (C1 0x9b is a one-byte CSI on some terminals).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def terminal_safe(text: str) -> str:
    """``text`` with control characters (ESC, CSI, BEL, ...) shown as ``\\xNN`` escapes, so a stored
    value cannot move the cursor, recolour or retitle the analyst's terminal."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def csv_safe(value: Any, text: str) -> str:
    """A text cell that a spreadsheet would run as a formula (``= + - @``, tab, CR first) gets a
    leading ``'``; numbers stay numbers."""
    if isinstance(value, str) and text[:1] in _FORMULA_START:
        return "'" + text
    return text


def to_table(result: ReportResult) -> str:
    """A fixed-width text table for the terminal (long cells are cut with an ellipsis)."""
    cols = result.columns
    cells = [[_cut(terminal_safe(cell_text(row[c]))) for c in cols] for row in result.rows]
    widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(cols)]
    line = "  ".join(c.ljust(w) for c, w in zip(cols, widths))
    out = [line.rstrip(), "  ".join("-" * w for w in widths)]
    for r in cells:
        out.append("  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip())
    out.append(f"({len(result.rows)} row{'s' if len(result.rows) != 1 else ''})")
    return "\n".join(out) + "\n"


def to_csv(result: ReportResult) -> str:
    """RFC 4180 CSV with a header row; list values are JSON-encoded inside their cell; text cells
    that start like a formula are neutralised (:func:`csv_safe`)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(result.columns)
    for row in result.rows:
        writer.writerow(
            [
                csv_safe(row[c], cell_text(row[c])) if not isinstance(row[c], float) else repr(row[c])
                for c in result.columns
            ]
        )
    return buf.getvalue()


def to_json(result: ReportResult) -> str:
    """``{"report", "description", "params", "columns", "rows": [{column: value}]}``."""
    doc = {
        "report": result.spec.name,
        "description": result.spec.description,
        "params": result.params,
        "columns": result.columns,
        "rows": result.rows,
    }
    return json.dumps(doc, ensure_ascii=False, indent=2, default=str) + "\n"


def render(result: ReportResult, fmt: str) -> str:
    """Render ``result`` in one of :data:`FORMATS`."""
    if fmt == "table":
        return to_table(result)
    if fmt == "csv":
        return to_csv(result)
    if fmt == "json":
        return to_json(result)
    if fmt == "html":
        return to_html(result)
    raise ValueError(f"format: must be one of {', '.join(FORMATS)}; got {fmt!r}")


def _cut(text: str) -> str:
    text = text.replace("\n", " ")
    return text if len(text) <= _MAX_CELL else text[: _MAX_CELL - 1] + "…"

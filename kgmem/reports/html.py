"""A report as one self-contained HTML page: title, parameters, an inline SVG chart, the table.

Everything is inline (CSS and SVG; no scripts, fonts or CDN), so the page can be
mailed, archived or opened offline.
"""

from __future__ import annotations

from datetime import UTC, datetime
from html import escape

from kgmem.reports.cells import cell_text
from kgmem.reports.library import ReportResult
from kgmem.reports.svgchart import render_svg

_CSS = """
body { font-family: 'DejaVu Sans', Arial, sans-serif; margin: 24px; color: #222; background: #fff; }
h1 { font-size: 20px; margin: 0 0 4px 0; }
p.desc { margin: 0 0 12px 0; color: #555; }
dl.params { display: flex; flex-wrap: wrap; gap: 4px 16px; margin: 0 0 16px 0; font-size: 12px; color: #555; }
dl.params dt { font-weight: bold; } dl.params dd { margin: 0; }
div.chart { margin: 0 0 20px 0; }
table { border-collapse: collapse; font-size: 12px; }
th, td { border: 1px solid #ccc; padding: 3px 6px; text-align: left; vertical-align: top; max-width: 420px; }
th { background: #f0f0f0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
p.empty { color: #a00; }
footer { margin-top: 16px; font-size: 11px; color: #888; }
"""


def to_html(result: ReportResult) -> str:
    """The complete page for ``result``."""
    spec = result.spec
    chart = render_svg(spec.chart, result.rows, spec.description) if spec.chart else ""
    params = "".join(f"<dt>{escape(k)}</dt><dd>{escape(cell_text(v))}</dd>" for k, v in result.params.items())
    head = "".join(f'<th title="{escape(c.description)}">{escape(c.name)}</th>' for c in spec.columns)
    body_rows = []
    for row in result.rows:
        cells = []
        for c in result.columns:
            value = row[c]
            numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
            cells.append(f"<td{' class=num' if numeric else ''}>{escape(cell_text(value))}</td>")
        body_rows.append("<tr>" + "".join(cells) + "</tr>")
    table = (
        f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body_rows)}</tbody></table>"
        if result.rows
        else '<p class="empty">No rows.</p>'
    )
    generated = datetime.now(UTC).isoformat(timespec="seconds")
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>kgmem report: {escape(spec.name)}</title><style>{_CSS}</style></head><body>"
        f'<h1>{escape(spec.name)}</h1><p class="desc">{escape(spec.description)}</p>'
        f'<dl class="params">{params}</dl>'
        + (f'<div class="chart" id="chart">{chart}</div>' if chart else "")
        + table
        + f"<footer>kgmem · {len(result.rows)} rows · generated {generated}</footer>"
        "</body></html>\n"
    )

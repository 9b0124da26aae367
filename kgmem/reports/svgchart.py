"""Inline SVG charts for HTML reports (no JavaScript, no CDN: the page works offline).

Three kinds, chosen by the report header's ``chart:`` line:
``line`` (x = ordered categories such as days, one line per series), ``bar``
(vertical grouped bars) and ``hbar`` (horizontal bars, for long labels such as
error patterns). Series come either from several ``y`` columns or from the
values of a ``series`` column.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from html import escape
from typing import Any

from kgmem.reports.spec import Chart

WIDTH = 880
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf")
MAX_CATEGORIES = 40
MAX_DAYS = 366
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


@dataclass(frozen=True)
class Series:
    name: str
    values: list[float | None]


def chart_data(chart: Chart, rows: Sequence[dict[str, Any]]) -> tuple[list[str], list[Series]]:
    """Categories (x) and series (y values aligned to the categories) from report rows."""
    categories: list[str] = []
    for row in rows:
        x = _label(row.get(chart.x))
        if x not in categories:
            categories.append(x)
    if chart.kind == "line":
        categories = _fill_days(categories)
    categories = categories[-MAX_DAYS:] if chart.kind == "line" else categories[:MAX_CATEGORIES]
    index = {c: i for i, c in enumerate(categories)}
    series: dict[str, list[float | None]] = {}
    for row in rows:
        x = _label(row.get(chart.x))
        if x not in index:
            continue
        for ycol in chart.y:
            name = _label(row.get(chart.series)) if chart.series else ycol
            if chart.series and len(chart.y) > 1:
                name = f"{name} {ycol}"
            values = series.setdefault(name, [0.0 if chart.kind == "line" else None] * len(categories))
            number = _number(row.get(ycol))
            if number is not None:
                values[index[x]] = (values[index[x]] or 0.0) + number
    return categories, [Series(n, v) for n, v in series.items()]


def render_svg(chart: Chart, rows: Sequence[dict[str, Any]], title: str = "") -> str:
    """The chart as an ``<svg>`` element; an empty string when there is nothing to draw."""
    categories, series = chart_data(chart, rows)
    if not categories or not any(v is not None for s in series for v in s.values):
        return ""
    if chart.kind == "line":
        return _line(categories, series, title)
    if chart.kind == "hbar":
        return _hbar(categories, series, title)
    return _bar(categories, series, title)


# -- drawing ------------------------------------------------------------------------
def _frame(height: int, title: str, body: list[str], series: list[Series]) -> str:
    legend = []
    if len(series) > 1:
        x = 60
        for i, s in enumerate(series[:12]):
            legend.append(
                f'<rect x="{x}" y="{height - 18}" width="12" height="12" fill="{PALETTE[i % len(PALETTE)]}"/>'
                f'<text x="{x + 16}" y="{height - 8}" font-size="12">{escape(_short(s.name, 24))}</text>'
            )
            x += 30 + 7 * min(len(s.name), 24)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" role="img" aria-label="{escape(title)}" '
        f'font-family="DejaVu Sans, Arial, sans-serif">'
        f'<rect x="0" y="0" width="{WIDTH}" height="{height}" fill="#ffffff"/>'
        + "".join(body)
        + "".join(legend)
        + "</svg>"
    )


def _scale(series: list[Series]) -> float:
    """Top of the value axis; counts get a multiple of 4 so the four gridlines fall on integers."""
    values = [v for s in series for v in s.values if v is not None]
    top = max(values, default=0.0)
    if top <= 0:
        return 1.0
    if all(float(v).is_integer() for v in values):
        return float(math.ceil(top / 4) * 4)
    return top


def _axis(x0: int, y0: int, x1: int, y1: int, top: float, vertical: bool) -> list[str]:
    """Axes with five gridlines labelled 0..top."""
    out = [
        f'<line x1="{x0}" y1="{y1}" x2="{x1}" y2="{y1}" stroke="#333"/>',
        f'<line x1="{x0}" y1="{y0}" x2="{x0}" y2="{y1}" stroke="#333"/>',
    ]
    for i in range(1, 5):
        frac = i / 4
        label = _fmt(top * frac)
        if vertical:
            y = y1 - (y1 - y0) * frac
            out.append(f'<line x1="{x0}" y1="{y:.1f}" x2="{x1}" y2="{y:.1f}" stroke="#ddd"/>')
            out.append(f'<text x="{x0 - 6}" y="{y + 4:.1f}" font-size="11" text-anchor="end">{label}</text>')
        else:
            x = x0 + (x1 - x0) * frac
            out.append(f'<line x1="{x:.1f}" y1="{y0}" x2="{x:.1f}" y2="{y1}" stroke="#ddd"/>')
            out.append(f'<text x="{x:.1f}" y="{y1 + 14}" font-size="11" text-anchor="middle">{label}</text>')
    return out


def _line(categories: list[str], series: list[Series], title: str) -> str:
    height, x0, y0, x1, y1 = 380, 60, 20, WIDTH - 50, 300
    top = _scale(series)
    body = _axis(x0, y0, x1, y1, top, vertical=True)
    step = (x1 - x0) / max(1, len(categories) - 1)
    for i, cat in enumerate(categories):
        if len(categories) <= 12 or i % max(1, len(categories) // 10) == 0:
            x = x0 + step * i if len(categories) > 1 else (x0 + x1) / 2
            body.append(
                f'<text x="{x:.1f}" y="{y1 + 16}" font-size="11" text-anchor="middle">{escape(_short(cat, 12))}</text>'
            )
    for k, s in enumerate(series):
        colour = PALETTE[k % len(PALETTE)]
        points = []
        for i, v in enumerate(s.values):
            x = x0 + step * i if len(categories) > 1 else (x0 + x1) / 2
            y = y1 - (y1 - y0) * ((v or 0.0) / top)
            points.append(f"{x:.1f},{y:.1f}")
            if len(categories) <= 60:
                body.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{colour}"/>')
        body.append(f'<polyline points="{" ".join(points)}" fill="none" stroke="{colour}" stroke-width="2.5"/>')
    return _frame(height, title, body, series)


def _bar(categories: list[str], series: list[Series], title: str) -> str:
    height, x0, y0, x1, y1 = 380, 60, 20, WIDTH - 20, 300
    top = _scale(series)
    body = _axis(x0, y0, x1, y1, top, vertical=True)
    group = (x1 - x0) / len(categories)
    width = max(2.0, group * 0.8 / max(1, len(series)))
    for i, cat in enumerate(categories):
        gx = x0 + group * i + group * 0.1
        body.append(
            f'<text x="{x0 + group * (i + 0.5):.1f}" y="{y1 + 16}" font-size="11" text-anchor="middle">'
            f"{escape(_short(cat, max(4, int(group / 7))))}</text>"
        )
        for k, s in enumerate(series):
            v = s.values[i] or 0.0
            h = (y1 - y0) * (v / top)
            body.append(
                f'<rect x="{gx + width * k:.1f}" y="{y1 - h:.1f}" width="{width:.1f}" height="{h:.1f}" '
                f'fill="{PALETTE[k % len(PALETTE)]}"><title>{escape(cat)}: {_fmt(v)}</title></rect>'
            )
    return _frame(height, title, body, series)


def _hbar(categories: list[str], series: list[Series], title: str) -> str:
    row_h = 22
    x0, y0 = 300, 10
    y1 = y0 + row_h * len(categories)
    x1 = WIDTH - 60
    height = y1 + 50
    top = _scale(series)
    body = _axis(x0, y0, x1, y1, top, vertical=False)
    bar_h = (row_h - 6) / max(1, len(series))
    for i, cat in enumerate(categories):
        y = y0 + row_h * i + 3
        body.append(
            f'<text x="{x0 - 6}" y="{y + row_h / 2 + 1:.1f}" font-size="11" text-anchor="end">'
            f"{escape(_short(cat, 45))}</text>"
        )
        for k, s in enumerate(series):
            v = s.values[i] or 0.0
            w = (x1 - x0) * (v / top)
            body.append(
                f'<rect x="{x0}" y="{y + bar_h * k:.1f}" width="{w:.1f}" height="{bar_h:.1f}" '
                f'fill="{PALETTE[k % len(PALETTE)]}"><title>{escape(cat)}: {_fmt(v)}</title></rect>'
            )
            if len(series) == 1:
                body.append(f'<text x="{x0 + w + 4:.1f}" y="{y + bar_h - 3:.1f}" font-size="11">{_fmt(v)}</text>')
    return _frame(height, title, body, series)


# -- helpers ------------------------------------------------------------------------
def _fill_days(categories: list[str]) -> list[str]:
    """Calendar days on the x axis get every day between the first and the last (a day without
    rows is a day with zero events), so the line's slope is true to time."""
    if not categories or not all(_DAY.match(c) for c in categories):
        return categories
    days = sorted(date.fromisoformat(c) for c in categories)
    span = min((days[-1] - days[0]).days, MAX_DAYS)
    return [(days[-1] - timedelta(days=span - i)).isoformat() for i in range(span + 1)]


def _label(value: Any) -> str:
    return "—" if value is None else str(value)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _short(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def _fmt(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:.2f}"

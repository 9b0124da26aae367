"""Renderers: table, CSV and JSON parse back; HTML is self-contained with an SVG chart."""

from __future__ import annotations

import csv
import io
import json
import re

from kgmem.reports.library import ReportResult
from kgmem.reports.render import render
from kgmem.reports.spec import parse_header
from kgmem.reports.svgchart import chart_data, render_svg

HEADER = """// name: demo
// description: Demo <report> & friends.
// param: ns str — namespace
// column: day — day
// column: tool — tool
// column: errors — count
// column: ratio — a float
// column: tags — a list
// chart: line x=day y=errors series=tool
RETURN 1
"""

ROWS = [
    {"day": "2026-11-01", "tool": "bash", "errors": 3, "ratio": 0.5, "tags": ["a", "b,c"]},
    {"day": "2026-11-01", "tool": "http", "errors": 1, "ratio": 1.0 / 3, "tags": []},
    {"day": "2026-11-02", "tool": "bash", "errors": 5, "ratio": None, "tags": ['x"y']},
]


def result(rows=ROWS) -> ReportResult:  # type: ignore[no-untyped-def]
    return ReportResult(spec=parse_header(HEADER, "reports/demo"), params={"ns": "t"}, rows=list(rows))


def test_csv_parses_back_to_the_rows() -> None:
    parsed = list(csv.DictReader(io.StringIO(render(result(), "csv"))))
    assert [r["tool"] for r in parsed] == ["bash", "http", "bash"]
    assert [int(r["errors"]) for r in parsed] == [3, 1, 5]
    assert float(parsed[1]["ratio"]) == 1.0 / 3  # full precision for batch jobs
    assert parsed[2]["ratio"] == ""
    assert json.loads(parsed[0]["tags"]) == ["a", "b,c"] and json.loads(parsed[2]["tags"]) == ['x"y']


def test_json_parses_back_to_the_rows() -> None:
    doc = json.loads(render(result(), "json"))
    assert doc["report"] == "demo" and doc["params"] == {"ns": "t"}
    assert doc["columns"] == ["day", "tool", "errors", "ratio", "tags"]
    assert doc["rows"] == ROWS


def test_table_has_a_header_and_one_line_per_row() -> None:
    lines = render(result(), "table").splitlines()
    assert lines[0].split() == ["day", "tool", "errors", "ratio", "tags"]
    assert len(lines) == 2 + len(ROWS) + 1 and lines[-1] == "(3 rows)"


def test_chart_data_aligns_series_to_categories() -> None:
    spec = parse_header(HEADER, "reports/demo")
    cats, series = chart_data(spec.chart, ROWS)
    assert cats == ["2026-11-01", "2026-11-02"]
    assert {s.name: s.values for s in series} == {"bash": [3.0, 5.0], "http": [1.0, 0.0]}  # no row = 0 events


def test_line_chart_days_are_filled_so_slopes_follow_time() -> None:
    spec = parse_header(HEADER, "reports/demo")
    rows = [dict(ROWS[0]), dict(ROWS[2], day="2026-11-04")]
    cats, series = chart_data(spec.chart, rows)
    assert cats == ["2026-11-01", "2026-11-02", "2026-11-03", "2026-11-04"]
    assert series[0].values == [3.0, 0.0, 0.0, 5.0]


def test_html_is_self_contained_escaped_and_has_the_chart() -> None:
    page = render(result(), "html")
    assert page.startswith("<!DOCTYPE html>")
    assert "<svg" in page and "<polyline" in page
    assert "Demo &lt;report&gt; &amp; friends." in page and "<report>" not in page
    # nothing is fetched from elsewhere
    assert not re.search(r"""(src|href)=["']?https?:""", page) and "<script" not in page
    assert page.count("<tr>") == 1 + len(ROWS)


def test_html_without_rows_says_so_and_draws_no_chart() -> None:
    page = render(result([]), "html")
    assert "No rows." in page and "<svg" not in page


def test_bar_and_hbar_charts_draw_one_rect_per_value() -> None:
    for kind in ("bar", "hbar"):
        spec = parse_header(HEADER.replace("chart: line", f"chart: {kind}"), "reports/demo")
        svg = render_svg(spec.chart, ROWS)
        # background + one bar per (category, series) pair + legend swatches for 2 series
        assert svg.count("<rect") == 1 + 4 + 2


def test_terminal_and_csv_neutralisation() -> None:
    from kgmem.reports.render import csv_safe, terminal_safe

    assert terminal_safe("a\x1b[31mb\x07c\x9bd\x00") == "a\\x1b[31mb\\x07c\\x9bd\\x00"
    assert terminal_safe("tab\tand é stay") == "tab\tand é stay"
    for text in ("=1+1", "+1", "-1", "@x", "\tx", "\rx"):
        assert csv_safe(text, text) == "'" + text
    assert csv_safe(-1, "-1") == "-1" and csv_safe("a=b", "a=b") == "a=b"

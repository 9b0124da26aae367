"""HTML reports render in headless Chromium with their chart visible."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from headless import chromium_or_skip, coloured_pixels, screenshot  # type: ignore[import-not-found]

from kgmem.reports import render, run_report
from kgmem.reports.svgchart import PALETTE

DOCS = Path(__file__).resolve().parents[2] / "docs" / "images"


def _rgb(hex_colour: str) -> tuple[int, int, int]:
    return tuple(int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))  # type: ignore[return-value]


@pytest.mark.parametrize("name", ["error_trend", "knowledge_by_type", "top_errors"])
def test_html_chart_is_visible_in_chromium(analyst, tmp_path: Path, name: str) -> None:
    chromium_or_skip()
    mem, _ = analyst
    page = tmp_path / f"{name}.html"
    page.write_text(render(run_report(mem.graph, name, {"ns": mem.namespace}), "html"))
    png = screenshot(str(page), tmp_path / f"{name}.png", width=1000, height=900)
    chart_box = (0, 60, 1000, 600)  # the chart sits under the title and the parameters
    drawn = coloured_pixels(png, chart_box, _rgb(PALETTE[0]), tol=30)
    assert drawn > 300, f"{name}: chart area looks blank ({drawn} pixels of the first series colour)"
    if os.environ.get("KGMEM_DOCS_SCREENSHOTS"):
        DOCS.mkdir(parents=True, exist_ok=True)
        shutil.copy(png, DOCS / f"report_{name}.png")


def test_a_report_without_rows_shows_no_chart(analyst, tmp_path: Path) -> None:
    """The pixel check above can fail: the same measurement on a page without a chart finds nothing."""
    chromium_or_skip()
    mem, _ = analyst
    empty = tmp_path / "empty.html"
    empty.write_text(render(run_report(mem.graph, "error_trend", {"ns": mem.namespace + "-nothing"}), "html"))
    blank = screenshot(str(empty), tmp_path / "empty.png", width=1000, height=900)
    assert coloured_pixels(blank, (0, 60, 1000, 600), _rgb(PALETTE[0]), tol=30) < 50

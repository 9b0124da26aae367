"""docs/benchmarks.md and the README's figures block are what ``python -m benchmarks render`` makes from
benchmarks/results.json, and the runner's figure and file handling."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from benchmarks import registry, render, results


def test_docs_benchmarks_md_is_rendered_from_the_results_file():
    expected = render.benchmarks_md(results.read())
    actual = render.DOC.read_text(encoding="utf-8") if render.DOC.exists() else ""
    assert actual == expected, "docs/benchmarks.md differs from results.json: run `python -m benchmarks render`"


def test_readme_figures_block_is_rendered_from_the_results_file():
    text = render.README.read_text(encoding="utf-8")
    if render.START not in text:
        pytest.skip("README.md has no figures markers yet")
    assert render.replace_block(text, render.readme_block(results.read())) == text, (
        "the README's figures block differs from results.json: run `python -m benchmarks render`"
    )


#: Generated pages: their figures come from the results file (the two tests above).
GENERATED = frozenset({"benchmarks.md", "api.md", "configuration.md"})
#: What a measured figure looks like in prose: a three-decimal number (0.714), or a quality or latency
#: measure followed by a number ("recall@10 0.71", "p95 of 43 ms", "MRR: 0.6").
MEASURED = re.compile(
    r"\b\d+\.\d{3,}\b|\b(?:recall|mrr|hit|p50|p95|p99)[@\w]*(?:\s+(?:of\s+|is\s+|was\s+)?|\s*[:=]\s*)\d", re.I
)


def measured_figures(text: str) -> list[str]:
    """The lines of ``text`` that quote a measured figure."""
    return [line.strip() for line in text.splitlines() if MEASURED.search(line)]


def test_guides_quote_no_measured_figure():
    """Figures live in the results file: a guide links docs/benchmarks.md instead of quoting one (a quoted
    figure drifts from the file). The README's generated block is the one place outside the generated pages."""
    readme = render.README.read_text(encoding="utf-8")
    outside = readme[: readme.index(render.START)] + readme[readme.index(render.END) :]
    pages = {"README.md": outside}
    pages |= {p.name: p.read_text(encoding="utf-8") for p in render.DOC.parent.glob("*.md") if p.name not in GENERATED}
    assert len(pages) > 10, pages.keys()
    quoted = {name: found for name, text in pages.items() if (found := measured_figures(text))}
    assert not quoted, f"guides quoting measured figures (put them in benchmarks/results.json): {quoted}"


def test_the_figure_check_sees_figures_and_passes_settings():
    assert measured_figures("On LoCoMo the default reaches 0.714 recall.")
    assert measured_figures("its p95 of 43 ms") and measured_figures("recall@10: 0.7") and measured_figures("MRR 0.62")
    assert not measured_figures("cosine >= 0.75, `defer_flush_ms` (200 ms), Neo4j 5.26, port 7687, 3.8.0")
    assert not measured_figures("evidence recall@10 and p95 latency: [Benchmarks](benchmarks.md)")


def _run(figures: dict, quick: bool = False) -> results.RunRecord:
    return results.RunRecord(
        command="python -m benchmarks run x",
        date="2026-01-02T03:04:05Z",
        commit="abc",
        machine="m",
        load="0.10 at start, 0.20 at end",
        quick=quick,
        wall_s=1.0,
        figures=figures,
    )


def test_every_figure_appears_with_its_provenance(tmp_path: Path):
    runs = {"locomo": _run({"kg-graphrag.recall_at_10": 0.61234, "questions": 1234})}
    text = render.benchmarks_md(runs)
    assert "| `kg-graphrag.recall_at_10` | 0.612 |" in text
    assert "| `questions` | 1,234 |" in text
    assert "`python -m benchmarks run x`" in text and "2026-01-02T03:04:05Z" in text and "0.10 at start" in text
    assert "Not recorded yet." in text  # the benchmarks without a run


def test_the_page_leads_with_the_headline_figures_then_each_benchmark_folded():
    runs = {
        "locomo": _run({"kg-graphrag.recall_at_10": 0.61234, "bm25.recall_at_10": 0.5, "questions": 1234}),
        "ingest": _run({"ingest_turns_per_s": 42.5}, quick=True),
    }
    text = render.benchmarks_md(runs)
    headline = text.index("## Headline figures")
    first_section = text.index("## LoCoMo retrieval (`locomo`)")
    assert headline < first_section
    table = text[headline:first_section]
    assert "| [LoCoMo evidence recall@10 (balanced preset)](#locomo) | 0.612 | 2026-01-02 |" in table
    assert "| [Bulk ingest](#ingest) | 42.50 turns/s | 2026-01-02, quick sample |" in table
    assert "questions" not in table and "LongMemEval" not in table  # only recorded headline figures
    assert '<a id="locomo"></a>' in text[:first_section]  # the headline links land on the section
    folded = text[first_section:]
    assert folded.index("<details><summary>All 3 figures</summary>") < folded.index("| `questions` | 1,234 |")
    assert folded.index("| `questions` | 1,234 |") < folded.index("</details>")


def test_readme_block_lists_only_recorded_headlines_and_keeps_text_outside_the_markers():
    runs = {"ingest": _run({"ingest_turns_per_s": 42.5}, quick=True)}
    block = render.readme_block(runs)
    assert "| Bulk ingest | 42.50 turns/s | 2026-01-02, quick sample |" in block
    assert "LoCoMo" not in block
    readme = f"before\n{render.START}\nold\n{render.END}\nafter\n"
    new = render.replace_block(readme, block)
    assert new is not None and new.startswith("before\n") and new.endswith(f"{render.END}\nafter\n")
    assert "old" not in new
    assert render.replace_block("no markers", block) is None


def test_flatten_makes_dotted_keys_and_drops_lists():
    flat = results.flatten({"a": {"b": 1.234567, "c": [1, 2], "d": True}, "e": float("nan"), "f": "x"})
    assert flat == {"a.b": 1.2346, "a.d": 1, "e": "nan", "f": "x"}


def test_a_quick_run_does_not_replace_a_full_one_unless_forced(tmp_path: Path):
    path = tmp_path / "results.json"
    assert results.record("x", _run({"v": 1}), path)
    assert not results.record("x", _run({"v": 2}, quick=True), path)
    assert results.read(path)["x"].figures == {"v": 1}
    assert results.record("x", _run({"v": 3}, quick=True), path, force=True)
    assert json.loads(path.read_text())["runs"]["x"]["figures"] == {"v": 3}


def test_a_results_file_of_another_schema_is_refused(tmp_path: Path):
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"schema": 99, "runs": {}}))
    with pytest.raises(results.ResultsError, match="schema 99"):
        results.read(path)


def test_unknown_benchmark_names_the_known_ones():
    with pytest.raises(registry.UnknownBenchmark, match="locomo"):
        registry.get("nope")


def test_every_registered_module_that_exists_has_run_and_main():
    # Parsed, not imported: importing them loads the embedding stack, too slow for the unit loop.
    for bench in registry.BENCHMARKS:
        path = render.REPO / "benchmarks" / f"{bench.module}.py"
        if path.exists():
            functions = {
                n.name for n in ast.parse(path.read_text(encoding="utf-8")).body if isinstance(n, ast.FunctionDef)
            }
            assert {"run", "main"} <= functions, f"{path.name} lacks run() or main()"


def test_every_module_with_a_main_is_a_registered_benchmark_or_a_listed_study():
    registered = {bench.module for bench in registry.BENCHMARKS}
    studies = {study.module for study in registry.STUDIES}
    assert not registered & studies
    for path in sorted((render.REPO / "benchmarks").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if path.stem in ("__main__",) or "main" not in {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}:
            continue
        assert path.stem in registered | studies, f"{path.name} has a main(): register it or list it in STUDIES"
        if path.stem in studies:
            assert "standalone study" in (ast.get_docstring(tree) or ""), f"{path.name}'s docstring does not say so"
    assert "## Standalone studies" in render.benchmarks_md({})

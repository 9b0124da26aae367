"""`kgmem report` end to end: listing, formats that parse back, clear errors with exit code 1."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kgmem.cli import main
from kgmem.reports import list_reports


@pytest.fixture(scope="module")
def runner() -> CliRunner:
    return CliRunner()


def test_no_name_lists_every_report(runner: CliRunner) -> None:
    out = runner.invoke(main, ["report"])
    assert out.exit_code == 0
    for spec in list_reports():
        assert spec.name in out.output and spec.description in out.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["report", "no_such_report"], "unknown report 'no_such_report'"),
        (["report", "top_errors", "--param", "limit=lots"], "parameter limit: expected an integer, got 'lots'"),
        (["report", "top_errors", "--param", "colour=red"], "unknown parameter(s) colour"),
        (["report", "top_errors", "--param", "limit"], "expected key=value"),
    ],
)
def test_bad_report_or_parameter_is_a_clear_error(runner: CliRunner, args: list[str], message: str) -> None:
    out = runner.invoke(main, args)
    assert out.exit_code == 1
    assert message in out.output and "Traceback" not in out.output


def test_csv_and_json_parse_back(runner: CliRunner, analyst) -> None:
    mem, _ = analyst
    ns = mem.namespace
    as_csv = runner.invoke(main, ["report", "top_errors", "--ns", ns, "--format", "csv"])
    assert as_csv.exit_code == 0, as_csv.output
    rows = list(csv.DictReader(io.StringIO(as_csv.stdout)))
    assert [(r["tool"], int(r["occurrences"])) for r in rows] == [("http", 4), ("bash", 3), ("bash", 2), ("db", 1)]
    as_json = runner.invoke(main, ["report", "fix_effectiveness", "--ns", ns, "-f", "json", "-p", "threshold=0.5"])
    doc = json.loads(as_json.stdout)
    assert doc["params"]["threshold"] == 0.5
    assert {r["fix"]: r["auto_apply_share"] for r in doc["rows"]} == {
        "increase the timeout": 1.0,
        "run the command with sudo": 0.0,
    }


def test_html_to_a_file(runner: CliRunner, analyst, tmp_path: Path) -> None:
    mem, _ = analyst
    out_file = tmp_path / "report.html"
    out = runner.invoke(main, ["report", "knowledge_by_type", "--ns", mem.namespace, "-f", "html", "-o", str(out_file)])
    assert out.exit_code == 0
    page = out_file.read_text()
    assert "<svg" in page and "0.8-0.9" in page


def test_all_reports_into_a_directory(runner: CliRunner, analyst, tmp_path: Path) -> None:
    mem, _ = analyst
    out_dir = tmp_path / "dashboard"
    out = runner.invoke(
        main, ["report", "--all", "--ns", mem.namespace, "-f", "html", "-o", str(out_dir), "-p", "days=30"]
    )
    assert out.exit_code == 0, out.output
    names = {s.name for s in list_reports()}
    assert {p.stem for p in out_dir.glob("*.html")} == names | {"index"}
    index = (out_dir / "index.html").read_text()
    assert all(f'href="{n}.html"' in index for n in names)
    assert "days</dt><dd>30" in (out_dir / "top_errors.html").read_text()  # the shared parameter reached it
    as_csv = runner.invoke(main, ["report", "--all", "--ns", mem.namespace, "-f", "csv", "-o", str(tmp_path / "csv")])
    assert as_csv.exit_code == 0
    rows = list(csv.DictReader(io.StringIO((tmp_path / "csv" / "top_errors.csv").read_text())))
    assert len(rows) == 4
    bad = runner.invoke(main, ["report", "--all", "-o", str(tmp_path / "x"), "-p", "colour=red"])
    assert bad.exit_code == 1 and "no report takes parameter(s) colour" in bad.output
    assert runner.invoke(main, ["report", "--all"]).exit_code == 1  # needs --out


def test_concept_reports_in_every_format(runner: CliRunner, concepts, tmp_path: Path) -> None:
    ns = concepts.ns
    table = runner.invoke(main, ["report", "top_concepts", "--ns", ns])
    assert table.exit_code == 0, table.output
    assert table.output.splitlines()[0].split()[:4] == ["concept", "key", "kind", "df"]
    assert "Caroline" in table.output and "(7 rows)" in table.output
    as_csv = runner.invoke(main, ["report", "concept_cooccurrence", "--ns", ns, "-f", "csv", "-p", "max_df_share=1"])
    assert as_csv.exit_code == 0, as_csv.output
    rows = list(csv.DictReader(io.StringIO(as_csv.stdout)))
    assert [(r["pair"], int(r["count"])) for r in rows][:2] == [
        ("Caroline · Melanie", 3),
        ("Caroline · support group", 3),
    ]
    assert float(rows[0]["pmi"]) == pytest.approx(0.3219, abs=1e-4)
    as_json = runner.invoke(main, ["report", "concept_cooccurrence", "--ns", ns, "-f", "json", "-p", "order_by=pmi"])
    doc = json.loads(as_json.stdout)
    assert doc["params"]["order_by"] == "pmi" and doc["params"]["max_df_share"] == 0.5
    assert [r["pair"] for r in doc["rows"]] == ["Deploy · timeout", "Melanie · support group"]
    out_file = tmp_path / "cooccurrence.html"
    html = runner.invoke(main, ["report", "concept_cooccurrence", "--ns", ns, "-f", "html", "-o", str(out_file)])
    assert html.exit_code == 0, html.output
    page = out_file.read_text()
    assert "<svg" in page and "Deploy · timeout" in page
    top = tmp_path / "top.html"
    assert runner.invoke(main, ["report", "top_concepts", "--ns", ns, "-f", "html", "-o", str(top)]).exit_code == 0
    assert "<svg" in top.read_text() and "support group" in top.read_text()


def test_bad_concept_report_parameter_is_a_clear_error(runner: CliRunner) -> None:
    out = runner.invoke(main, ["report", "concept_cooccurrence", "-p", "max_df_share=2"])
    assert out.exit_code == 1
    assert "parameter max_df_share: must be in [0..1], got 2.0" in out.output and "Traceback" not in out.output

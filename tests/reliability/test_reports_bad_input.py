"""Reports, CLI and config regression tests (defects 8 and 11): one-line errors instead of
tracebacks, no silent namespace fallbacks, no secrets echoed, no formulas or terminal escapes
smuggled through report output."""

from __future__ import annotations

import csv
import io

import pytest
from click.testing import CliRunner

from kgmem.cli import main
from kgmem.errors import ValidationError


def _cli(*args: str, **env: str):  # type: ignore[no-untyped-def]
    return CliRunner(env=env or None).invoke(main, list(args))


def _one_line_error(result, needle: str) -> None:  # type: ignore[no-untyped-def]
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0], result.stderr


@pytest.mark.parametrize(
    "param, needle",
    [
        ("limit=-1", "must be in [1..100000]"),
        ("limit=1e23", "expected an integer"),
        ("limit=99999999999999999999999", "too large"),
        ("days=1e12", "expected an integer"),
        ("days=1000000000000", "must be in [1..36500]"),
        ("days=0", "must be in [1..36500]"),
    ],
)
def test_report_parameter_errors_are_one_line(param, needle) -> None:
    _one_line_error(_cli("report", "top_errors", "-p", param), needle)


def test_float_parameters_must_be_finite_and_in_range() -> None:
    _one_line_error(_cli("report", "unresolved_errors", "-p", "threshold=nan"), "finite")
    _one_line_error(_cli("report", "unresolved_errors", "-p", "threshold=1.5"), "must be in [0..1]")


def test_wrong_neo4j_password_is_one_line(ns) -> None:
    _one_line_error(
        _cli("report", "top_errors", "--ns", ns, KGMEM_NEO4J__PASSWORD="wrong-password"),
        "Neo4j rejected the credentials",
    )


def test_empty_namespace_is_refused_everywhere(mem) -> None:
    _one_line_error(_cli("report", "top_errors", "--ns", ""), "namespace: must not be empty")
    _one_line_error(_cli("report", "top_errors", "-p", "ns="), "must not be empty")
    _one_line_error(_cli("report", "top_errors", KGMEM_NAMESPACE=""), "namespace")
    _one_line_error(_cli("report", "top_errors", KGMEM_NAMESPACE="   "), "namespace")
    _one_line_error(_cli("decay", "--ns", ""), "--ns: must be a non-empty string")
    for call in (
        lambda: mem.tool_result("psql", error="boom", ns=""),
        lambda: mem.turn(session="s", role="user", text="hi", ns=""),
        lambda: mem.search("anything", ns=""),
        lambda: mem.add_knowledge("a fact", ns=" "),
        lambda: mem.report("top_errors", ns=""),
        lambda: mem.ingest([], ns=""),
    ):
        with pytest.raises(ValidationError, match="ns: must be a non-empty string"):
            call()


def test_ns_given_twice_with_different_values_is_an_error(ns) -> None:
    _one_line_error(_cli("report", "top_errors", "-p", f"ns={ns}", "--ns", ns + "-other"), "disagree")
    ok = _cli("report", "top_errors", "-p", f"ns={ns}", "--ns", ns)  # the same value twice is fine
    assert ok.exit_code == 0, ok.output


HOSTILE = [
    '=HYPERLINK("http://evil","x")',
    "+1+1",
    "-2+3",
    "@SUM(A1)",
    "plain \x1b]0;owned\x07 \x1b[31mred",
    "csi \x9b2J",
]


def test_csv_and_table_output_neutralise_formulas_and_escapes(mem, ns) -> None:
    for i, text in enumerate(HOSTILE):
        mem.tool_results([{"tool": text, "error": f"failure {i}", "session": "s"}], ns=ns)
    result = _cli("report", "top_errors", "--ns", ns, "-f", "csv")
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    tools = {r["tool"] for r in rows}
    for text in HOSTILE[:4]:
        assert "'" + text in tools  # a spreadsheet shows it as text
    assert all(r["occurrences"].lstrip("-").isdigit() for r in rows)  # numbers are left alone
    table = _cli("report", "top_errors", "--ns", ns)
    assert table.exit_code == 0 and "\x1b" not in table.stdout and "\x07" not in table.stdout
    assert "\x9b" not in table.stdout and "\\x1b" in table.stdout

"""Report headers: parsing, parameter binding and the shipped library's consistency."""

from __future__ import annotations

import pytest

from kgmem import cypher
from kgmem.errors import ReportError, ReportParamError
from kgmem.reports import list_reports, load_report
from kgmem.reports.spec import bind_params, parse_header

HEADER = """// name: demo
// description: A demo report.
// param: ns str — namespace
// param: limit int = 20 — rows
// param: threshold float = 0.7 — cut-off
// param: all bool = false — everything
// param: tool str = * — only this tool
// param: by str = tool {tool,category} — grouping
// column: tool — the tool
// column: n — how many
// chart: hbar x=tool y=n
MATCH (n) RETURN n.tool AS tool, count(*) AS n
"""


def test_parse_header_reads_params_columns_chart() -> None:
    spec = parse_header(HEADER, "reports/demo")
    assert spec.name == "demo" and spec.description == "A demo report."
    assert [(p.name, p.type, p.default, p.required) for p in spec.params] == [
        ("ns", "str", None, True),
        ("limit", "int", 20, False),
        ("threshold", "float", 0.7, False),
        ("all", "bool", False, False),
        ("tool", "str", "*", False),
        ("by", "str", "tool", False),
    ]
    assert spec.param("by").choices == ("tool", "category")
    assert spec.column_names == ["tool", "n"]
    assert spec.chart is not None and (spec.chart.kind, spec.chart.x, spec.chart.y) == ("hbar", "tool", ("n",))


def test_bind_params_coerces_strings_from_the_command_line() -> None:
    spec = parse_header(HEADER, "reports/demo")
    bound = bind_params(spec, {"ns": "x", "limit": "5", "threshold": "0.25", "all": "yes"})
    assert bound == {"ns": "x", "limit": 5, "threshold": 0.25, "all": True, "tool": "*", "by": "tool"}


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"ns": "x", "limit": "many"}, "parameter limit: expected an integer"),
        ({"ns": "x", "threshold": "high"}, "parameter threshold: expected a number"),
        ({"ns": "x", "all": "maybe"}, "parameter all: expected a boolean"),
        ({"ns": "x", "colour": "red"}, "unknown parameter(s) colour"),
        ({"ns": "x", "by": "colour"}, "parameter by: must be one of tool, category; got 'colour'"),
        ({}, "parameter ns (str) is required"),
    ],
)
def test_bind_params_rejects_bad_input_naming_the_parameter(given: dict, message: str) -> None:
    spec = parse_header(HEADER, "reports/demo")
    with pytest.raises(ReportParamError, match=message.replace("(", r"\(").replace(")", r"\)")):
        bind_params(spec, given)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("// description: d\n// column: a\nRETURN 1 AS a", "needs '// name"),
        ("// name: x\n// column: a\nRETURN 1 AS a", "needs '// description"),
        ("// name: x\n// description: d\nRETURN 1", "declares no '// column:'"),
        ("// name: x\n// description: d\n// param: n integer\n// column: a\nRETURN 1", "type must be one of"),
        ("// name: x\n// description: d\n// column: a\n// chart: pie x=a y=a\nRETURN 1", "chart kind"),
        ("// name: x\n// description: d\n// column: a\n// chart: bar x=a y=b\nRETURN 1", "undeclared column 'b'"),
    ],
)
def test_malformed_headers_are_rejected(text: str, message: str) -> None:
    with pytest.raises(ReportError, match=message):
        parse_header(text, "reports/x")


def test_unknown_report_lists_the_known_ones() -> None:
    with pytest.raises(ReportError, match="unknown report 'nope'; known reports: .*top_errors"):
        load_report("nope")


def test_every_shipped_report_parses_and_takes_ns() -> None:
    specs = list_reports()
    names = {s.name for s in specs}
    # the reports the analysts asked for
    assert {
        "top_errors",
        "error_trend",
        "unresolved_errors",
        "fix_effectiveness",
        "error_clusters",
        "knowledge_by_type",
        "contradictions",
        "stale_knowledge",
        "session_timeline",
        "retrieval_usage",
        "graph_health",
        "top_concepts",
        "concept_cooccurrence",
    } <= names
    for spec in specs:
        assert spec.param("ns") is not None and spec.param("ns").required, spec.name
        # every declared parameter is used by the query, and every $parameter is declared
        body = "\n".join(l for l in spec.query.splitlines() if not l.strip().startswith("//"))
        used = set(__import__("re").findall(r"\$([a-z_]+)", body))
        assert used == {p.name for p in spec.params}, spec.name
        # Browser's `:params {...}` sends every number as a float: LIMIT must tolerate 20.0
        assert "LIMIT $" not in body, spec.name
        assert cypher.load(spec.cypher_name)


def test_declared_ranges_bound_numbers() -> None:
    from kgmem.errors import ReportParamError
    from kgmem.reports.spec import bind_params, parse_header

    spec = parse_header(
        "// name: r\n// description: d\n// param: days int = 7 [1..36500] — window\n"
        "// param: t float = 0.5 [0..1] — threshold\n// param: n int = 3 — free\n// column: x\n",
        "r",
    )
    assert bind_params(spec, {"days": "30", "t": "1"}) == {"days": 30, "t": 1.0, "n": 3}
    for given, needle in (
        ({"days": "0"}, "[1..36500]"),
        ({"days": "36501"}, "[1..36500]"),
        ({"t": "inf"}, "finite"),
        ({"t": "-0.1"}, "[0..1]"),
        ({"n": str(2**70)}, "too large"),
    ):
        with pytest.raises(ReportParamError, match=needle.replace("[", r"\[").replace("]", r"\]").replace(".", r"\.")):
            bind_params(spec, given)

"""Report headers: the structured comment block at the top of ``cypher/reports/<name>.cypher``.

A header is the leading run of ``//`` lines::

    // name: top_errors
    // description: Most frequent error patterns, by tool and category, with their trend.
    // param: ns str — namespace (default: the configured namespace)
    // param: limit int = 20 — how many patterns to return
    // param: by str = tool {tool,category} — a str parameter limited to the listed choices
    // column: tool — tool that raised the error
    // chart: hbar x=pattern y=occurrences

``param`` types are ``str``, ``int``, ``float`` and ``bool``; a parameter without
``= default`` is required (``ns`` is filled in from the settings by the CLI). A number may
declare its allowed range after the default: ``// param: days int = 7 [1..36500] — ...``.
``chart`` is optional: ``line``, ``bar`` or ``hbar``, with ``x=`` a column, ``y=`` one
or more comma-separated columns and optionally ``series=`` a column whose values
become separate series.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kgmem.errors import ReportError, ReportParamError

PARAM_TYPES = ("str", "int", "float", "bool")
CHART_KINDS = ("line", "bar", "hbar")
_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}

_LINE = re.compile(r"^//\s?(?P<key>[a-z]+):\s*(?P<rest>.*)$")
_PARAM = re.compile(
    r"^(?P<name>[a-z_][a-z0-9_]*)\s+(?P<type>\w+)(?:\s*=\s*(?P<default>[^\s{\[]+))?"
    r"(?:\s*\[(?P<lo>[^\]]*?)\.\.(?P<hi>[^\]]*)\])?"
    r"(?:\s*\{(?P<choices>[^}]*)\})?\s*(?:[—-]+\s*(?P<doc>.*))?$"
)
# Without a declared range a number must still be something Cypher can take (64-bit int,
# finite float); a declared range (`[lo..hi]`) keeps e.g. `days` inside what durations allow.
_INT_LIMIT = 2**63 - 1
_COLUMN = re.compile(r"^(?P<name>[a-z_][a-z0-9_]*)\s*(?:[—-]+\s*(?P<doc>.*))?$")
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


@dataclass(frozen=True)
class Param:
    """One report parameter as declared in the header."""

    name: str
    type: str
    default: Any = None
    required: bool = False
    description: str = ""
    choices: tuple[str, ...] = ()
    low: float | None = None
    high: float | None = None

    def check_range(self, value: Any, what: str) -> None:
        """Raise :class:`ReportParamError` when a number is outside the declared (or Cypher's) range."""
        if self.type == "float" and (value != value or value in (float("inf"), float("-inf"))):
            raise ReportParamError(f"{what}: must be a finite number, got {value!r}")
        if self.type == "int" and abs(value) > _INT_LIMIT:
            raise ReportParamError(f"{what}: {value} is too large")
        if (self.low is not None and value < self.low) or (self.high is not None and value > self.high):
            low = "" if self.low is None else _num(self.low)
            high = "" if self.high is None else _num(self.high)
            raise ReportParamError(f"{what}: must be in [{low}..{high}], got {value!r}")


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


@dataclass(frozen=True)
class Column:
    """One output column as declared in the header."""

    name: str
    description: str = ""


@dataclass(frozen=True)
class Chart:
    """How the HTML output draws the rows: ``x`` column, ``y`` columns, optional ``series`` column."""

    kind: str
    x: str
    y: tuple[str, ...]
    series: str | None = None


@dataclass(frozen=True)
class ReportSpec:
    """A parsed report header plus the name of its Cypher file."""

    name: str
    description: str
    params: tuple[Param, ...]
    columns: tuple[Column, ...]
    chart: Chart | None = None
    cypher_name: str = ""
    query: str = field(default="", repr=False)

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)

    @property
    def column_names(self) -> list[str]:
        return [c.name for c in self.columns]


def coerce(value: Any, type_name: str, what: str) -> Any:
    """Convert ``value`` (usually a CLI string) to ``type_name`` or raise naming ``what``."""
    if type_name == "str":
        if not isinstance(value, str):
            raise ReportParamError(f"{what}: expected a string, got {value!r}")
        return value
    if type_name == "bool":
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
        raise ReportParamError(f"{what}: expected a boolean (true/false), got {value!r}")
    if type_name == "int":
        if isinstance(value, bool):
            raise ReportParamError(f"{what}: expected an integer, got {value!r}")
        if isinstance(value, int):
            return value
        try:
            return int(str(value).strip())
        except ValueError:
            raise ReportParamError(f"{what}: expected an integer, got {value!r}") from None
    if type_name == "float":
        if isinstance(value, bool):
            raise ReportParamError(f"{what}: expected a number, got {value!r}")
        if isinstance(value, (int, float)):
            return float(value)
        try:
            return float(str(value).strip())
        except ValueError:
            raise ReportParamError(f"{what}: expected a number, got {value!r}") from None
    raise ReportError(f"{what}: unknown parameter type {type_name!r}")


def parse_header(text: str, cypher_name: str) -> ReportSpec:
    """Parse the header of one report file; raise :class:`ReportError` naming the file and line."""
    fields: dict[str, str] = {}
    params: list[Param] = []
    columns: list[Column] = []
    chart: Chart | None = None
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        if not line.startswith("//"):
            break
        match = _LINE.match(line)
        if not match:
            continue  # free-form comment
        key, rest = match["key"], match["rest"].strip()
        where = f"{cypher_name}.cypher:{lineno}"
        if key in ("name", "description"):
            fields[key] = rest
        elif key == "param":
            params.append(_parse_param(rest, where))
        elif key == "column":
            col = _COLUMN.match(rest)
            if not col:
                raise ReportError(f"{where}: bad column line {rest!r}")
            columns.append(Column(col["name"], (col["doc"] or "").strip()))
        elif key == "chart":
            chart = _parse_chart(rest, where)
    name = fields.get("name", "")
    if not _NAME.match(name):
        raise ReportError(f"{cypher_name}.cypher: header needs '// name: <snake_case>' (got {name!r})")
    if not fields.get("description"):
        raise ReportError(f"{cypher_name}.cypher: header needs '// description: ...'")
    if not columns:
        raise ReportError(f"{cypher_name}.cypher: header declares no '// column:' lines")
    names = [c.name for c in columns]
    if chart:
        for ref in (chart.x, *chart.y, *([chart.series] if chart.series else [])):
            if ref not in names:
                raise ReportError(f"{cypher_name}.cypher: chart refers to undeclared column {ref!r}")
    return ReportSpec(
        name=name,
        description=fields["description"],
        params=tuple(params),
        columns=tuple(columns),
        chart=chart,
        cypher_name=cypher_name,
        query=text,
    )


def _parse_param(rest: str, where: str) -> Param:
    match = _PARAM.match(rest)
    if not match:
        raise ReportError(f"{where}: bad param line {rest!r} (want: name type [= default] — description)")
    type_name = match["type"]
    if type_name not in PARAM_TYPES:
        raise ReportError(f"{where}: param {match['name']}: type must be one of {', '.join(PARAM_TYPES)}")
    raw_default = match["default"]
    default = None
    if raw_default is not None:
        if type_name == "str":
            default = raw_default.strip("\"'")
        else:
            default = coerce(raw_default, type_name, f"{where}: default of {match['name']}")
    low = high = None
    if match["lo"] is not None or match["hi"] is not None:
        if type_name not in ("int", "float"):
            raise ReportError(f"{where}: param {match['name']}: a [lo..hi] range is for int and float parameters")
        bound = f"{where}: range of {match['name']}"
        low = coerce(match["lo"], type_name, bound) if (match["lo"] or "").strip() else None
        high = coerce(match["hi"], type_name, bound) if (match["hi"] or "").strip() else None
    choices = tuple(c.strip() for c in (match["choices"] or "").split(",") if c.strip())
    if choices and type_name != "str":
        raise ReportError(f"{where}: param {match['name']}: choices are for str parameters")
    if choices and default is not None and default not in choices:
        raise ReportError(f"{where}: param {match['name']}: default {default!r} is not one of its choices")
    return Param(
        name=match["name"],
        type=type_name,
        default=default,
        required=raw_default is None,
        description=(match["doc"] or "").strip(),
        choices=choices,
        low=low,
        high=high,
    )


def _parse_chart(rest: str, where: str) -> Chart:
    kind, *options = rest.split()
    if kind not in CHART_KINDS:
        raise ReportError(f"{where}: chart kind must be one of {', '.join(CHART_KINDS)}")
    opts = dict(opt.split("=", 1) for opt in options if "=" in opt)
    if "x" not in opts or "y" not in opts:
        raise ReportError(f"{where}: chart needs x= and y=")
    return Chart(kind=kind, x=opts["x"], y=tuple(opts["y"].split(",")), series=opts.get("series"))


def bind_params(spec: ReportSpec, given: Mapping[str, Any]) -> dict[str, Any]:
    """Validate ``given`` against the header: unknown names, wrong types and missing values raise
    :class:`ReportParamError` naming the report and the parameter. Returns every parameter's value."""
    known = {p.name for p in spec.params}
    unknown = sorted(set(given) - known)
    if unknown:
        listed = ", ".join(sorted(known)) or "none"
        raise ReportParamError(f"report {spec.name}: unknown parameter(s) {', '.join(unknown)} (it takes: {listed})")
    bound: dict[str, Any] = {}
    for param in spec.params:
        if param.name in given and given[param.name] is not None:
            what = f"report {spec.name}: parameter {param.name}"
            bound[param.name] = coerce(given[param.name], param.type, what)
            if param.choices and bound[param.name] not in param.choices:
                raise ReportParamError(f"{what}: must be one of {', '.join(param.choices)}; got {bound[param.name]!r}")
            if param.type in ("int", "float"):
                param.check_range(bound[param.name], what)
            if param.name == "ns" and not str(bound[param.name]).strip():
                raise ReportParamError(f"{what}: must be a non-empty namespace")
        elif param.required:
            raise ReportParamError(f"report {spec.name}: parameter {param.name} ({param.type}) is required")
        else:
            bound[param.name] = param.default
    return bound

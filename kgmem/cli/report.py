"""`kgmem report [NAME] [--param k=v ...] [--format table|csv|json|html] [--out FILE]`."""

from __future__ import annotations

import logging
from pathlib import Path

import click

from kgmem.config import load_settings
from kgmem.errors import ReportParamError


def _parse_params(pairs: tuple[str, ...]) -> dict[str, str]:
    params: dict[str, str] = {}
    for pair in pairs:
        if "=" not in pair:
            raise ReportParamError(f"--param {pair!r}: expected key=value")
        key, value = pair.split("=", 1)
        params[key.strip()] = value
    return params


def _merge_ns(given: dict[str, str], ns: str | None) -> None:
    """``--ns X`` is ``-p ns=X``; both with different values is an error (neither silently wins),
    and an empty namespace is refused (it used to mean the default one)."""
    if ns is not None:
        if "ns" in given and given["ns"] != ns:
            raise ReportParamError(f"--ns {ns!r} and --param ns={given['ns']!r} disagree: give the namespace once")
        given["ns"] = ns
    if "ns" in given and not given["ns"].strip():
        raise ReportParamError("namespace: must not be empty (omit --ns to use the configured one)")


def _list_reports() -> None:
    from kgmem.reports import list_reports

    specs = list_reports()
    width = max(len(s.name) for s in specs)
    for spec in specs:
        click.echo(f"{spec.name.ljust(width)}  {spec.description}")
        for p in spec.params:
            if p.name == "ns":
                continue
            default = "required" if p.required else f"default {p.default}"
            kind = "|".join(p.choices) if p.choices else p.type
            if p.low is not None or p.high is not None:
                low, high = ("" if v is None else f"{v:g}" for v in (p.low, p.high))
                kind += f" in [{low}..{high}]"
            click.echo(f"{' ' * width}    --param {p.name}=<{kind}>  ({default}) {p.description}")


@click.command()
@click.argument("name", required=False)
@click.option("--param", "-p", "params", multiple=True, metavar="KEY=VALUE", help="Report parameter (repeatable).")
@click.option(
    "--format",
    "-f",
    "fmt",
    type=click.Choice(["table", "csv", "json", "html"]),
    default="table",
    show_default=True,
    help="Output format; csv/json for batch jobs, html for a page with a chart.",
)
@click.option(
    "--out", "-o", type=click.Path(path_type=Path), help="Write to FILE instead of stdout (with --all: a directory)."
)
@click.option("--ns", default=None, help="Namespace (default from settings); same as --param ns=NS.")
@click.option(
    "--all",
    "run_all_reports",
    is_flag=True,
    help="Run every report into the directory --out (one file each; html adds index.html).",
)
def report(
    name: str | None, params: tuple[str, ...], fmt: str, out: Path | None, ns: str | None, run_all_reports: bool
) -> None:
    """Run the Cypher report NAME (cypher/reports/NAME.cypher); without NAME, list the reports."""
    from kgmem.app import Engines
    from kgmem.reports import load_report, render, run_report
    from kgmem.reports.spec import bind_params

    given = _parse_params(params)
    settings = load_settings()
    _merge_ns(given, ns)
    if run_all_reports:
        _run_all(settings, name, given, fmt, out)
        return
    if not name:
        _list_reports()
        return
    if out is not None and out.is_dir():
        raise ReportParamError(f"--out {out}: is a directory (use --all to write every report into it)")
    spec = load_report(name)  # unknown report: clear error before connecting
    if spec.param("ns") and "ns" not in given:
        given["ns"] = settings.namespace
    bind_params(spec, given)  # bad parameters: clear error before connecting
    # Property-key warnings for graphs that lack some data are noise for a report reader.
    logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)
    with Engines(settings) as engines:
        result = run_report(engines.graph, name, given)
    text = render(result, fmt)
    if out:
        out.write_text(text, encoding="utf-8")
        click.echo(f"{name}: {len(result.rows)} rows written to {out}", err=True)
    else:
        click.echo(text, nl=False)


def _run_all(settings, name, given, fmt, out) -> None:  # type: ignore[no-untyped-def]
    from kgmem.app import Engines
    from kgmem.reports.batch import run_all

    if name:
        raise ReportParamError("--all runs every report: give no NAME")
    if out is None:
        raise ReportParamError("--all needs --out DIR (the directory to write the reports to)")
    namespace = given.pop("ns", None) or settings.namespace
    logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)
    with Engines(settings) as engines:
        written = run_all(engines.graph, namespace, fmt, out, given)
    for w in written:
        click.echo(f"{w.name:<20} {w.rows:>6} rows  {w.path}")

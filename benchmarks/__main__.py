"""``python -m benchmarks``: list, run and render kgmem's benchmarks (see benchmarks/__init__.py)."""

from __future__ import annotations

import logging
import sys
import time

import click

from benchmarks import registry, render, results


def _settings():  # noqa: ANN202 - kgmem.config.Settings, imported late (kgmem loads models lazily)
    from kgmem.config import load_settings

    return load_settings()


def _run_one(bench: registry.Benchmark, quick: bool, force: bool) -> bool:
    module = registry.load(bench)
    if module is None:
        click.echo(
            f"{bench.name}: benchmarks.{bench.module} is not in this checkout (or has no run()); skipped", err=True
        )
        return False
    recorded = results.read().get(bench.name)
    if quick and not force and recorded is not None and not recorded.quick:
        click.echo(f"{bench.name}: a full run is recorded; a quick run would not replace it (--force)", err=True)
        return True
    command = f"python -m benchmarks run {bench.name}" + (" --quick" if quick else "")
    click.echo(f"== {bench.name}{' (quick)' if quick else ''}", err=True)
    load_start = results.load_average()
    date = results.now()
    start = time.perf_counter()
    figures = results.flatten(module.run(_settings(), quick=quick))
    wall = time.perf_counter() - start
    run = results.RunRecord(
        command=command,
        date=date,
        commit=results.commit(),
        machine=results.machine(),
        load=f"{load_start:.2f} at start, {results.load_average():.2f} at end",
        quick=quick,
        wall_s=round(wall, 1),
        figures=figures,
    )
    stored = results.record(bench.name, run, force=force)
    for key, value in sorted(figures.items()):
        click.echo(f"  {key} = {render.fmt(value)}")
    click.echo(f"{bench.name}: {len(figures)} figures in {wall:.0f} s{'' if stored else ' (not stored)'}", err=True)
    if stored:
        render.render()  # the docs follow the results file at once (a test compares them)
    return True


@click.group()
@click.option("-v", "--verbose", is_flag=True, help="log at INFO")
def cli(verbose: bool) -> None:
    """kgmem's benchmarks: every figure goes to benchmarks/results.json."""
    logging.basicConfig(
        level=logging.INFO if verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s"
    )
    logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)


@cli.command("list")
def list_() -> None:
    """Every benchmark, whether this checkout has it, and its recorded run."""
    runs = results.read()
    for bench in registry.BENCHMARKS:
        present = registry.load(bench) is not None
        run = runs.get(bench.name)
        recorded = f"{run.date} {'quick' if run.quick else 'full'}" if run else "not recorded"
        path = render.REPO / "benchmarks" / f"{bench.module}.py"
        state = "" if present else ("  [no run() in " if path.exists() else "  [missing: ") + f"{path.name}]"
        click.echo(f"{bench.name:<16} {recorded:<28} {bench.title}{state}")
    click.echo("\nstandalone studies (python -m benchmarks.NAME; their figures are not recorded):")
    for study in registry.STUDIES:
        click.echo(f"{study.module:<20} {study.summary}")


@cli.command()
@click.argument("name")
@click.option("--quick", is_flag=True, help="a small sample, in minutes")
@click.option("--force", is_flag=True, help="let a quick run replace a recorded full run")
def run(name: str, quick: bool, force: bool) -> None:
    """Run one benchmark and record its figures."""
    try:
        bench = registry.get(name)
    except registry.UnknownBenchmark as exc:
        raise click.BadParameter(str(exc.args[0]), param_hint="NAME") from None
    if not _run_one(bench, quick, force):
        sys.exit(1)


@cli.command("all")
@click.option("--quick", is_flag=True, help="small samples, in minutes")
@click.option("--force", is_flag=True, help="let quick runs replace recorded full runs")
def all_(quick: bool, force: bool) -> None:
    """Run every benchmark this checkout has (one failing does not stop the others)."""
    failed = []
    for bench in registry.BENCHMARKS:
        try:
            _run_one(bench, quick, force)
        except Exception as exc:  # one broken benchmark must not hide the others' figures
            logging.getLogger(__name__).exception("%s failed", bench.name)
            failed.append(f"{bench.name}: {exc}")
    if failed:
        click.echo("failed:\n  " + "\n  ".join(failed), err=True)
        sys.exit(1)


@cli.command("render")
def render_() -> None:
    """Regenerate docs/benchmarks.md and the README's figures block from benchmarks/results.json."""
    out = render.render()
    click.echo(f"wrote {render.DOC.relative_to(render.REPO)}")
    if out.readme is None:
        click.echo("README.md has no <!-- figures:start --> / <!-- figures:end --> markers: README not changed")
    else:
        click.echo("wrote the README's figures block")


if __name__ == "__main__":
    cli()

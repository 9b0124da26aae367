"""`kgmem init` and `kgmem demo` (`kgmem search` lives in kgmem/cli/search.py)."""

from __future__ import annotations

import click

from kgmem.config import load_settings


@click.command()
def init() -> None:
    """Apply the graph schema (constraints, indexes) idempotently."""
    from kgmem.app import Engines
    from kgmem.graph.schema import apply_schema

    settings = load_settings()
    with Engines(settings, schema_step=False) as engines:  # the schema is applied here, in full
        version = apply_schema(engines.graph)
    click.echo(f"schema version {version} applied to {settings.neo4j.uri}")


@click.command()
@click.option("--ns", default="demo", show_default=True, help="Namespace for the demo (wiped first).")
def demo(ns: str) -> None:
    """Start the local Neo4j, record tool errors and a fix, search, and print what kgmem found."""
    from kgmem.cli.quiet import library_noise_silenced
    from kgmem.demo import run_demo

    with library_noise_silenced():  # a first-time user sees kgmem's output, not torch's export warnings
        run_demo(echo=click.echo, ns=ns)

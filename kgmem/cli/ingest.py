"""``kgmem ingest FILE.jsonl``: bulk-load turns, tool results, knowledge and session ends."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from kgmem.config import load_settings


@click.command()
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--ns", default=None, help="Namespace (default from settings).")
@click.option(
    "--batch-size",
    default=256,
    show_default=True,
    type=click.IntRange(1, 10_000),
    help="Turns per transaction / embedding batch.",
)
@click.option("--analyze", is_flag=True, help="Also feed turns to conversation analysis (slow for big files).")
@click.option("--no-progress", is_flag=True, help="No progress bar.")
def ingest(path: Path, ns: str | None, batch_size: int, analyze: bool, no_progress: bool) -> None:
    """Load a JSONL file of events (one per line: turn, tool_result, knowledge, session_end).

    Batched and idempotent (re-running adds nothing). A malformed line is named on stderr and
    skipped; every valid line is stored; the exit code is 1 if any line was rejected.
    """
    from kgmem import KGMem

    with KGMem(load_settings()) as mem:
        report = mem.ingest(path, ns=ns, batch_size=batch_size, progress=not no_progress, analyze=analyze)
    for error in report.errors:
        click.echo(f"error: {path}:{error.line}: {error.message}", err=True)
    click.echo(report.summary())
    if report.errors:
        sys.exit(1)

"""The ``kgmem`` command line (click). One module per command group."""

from __future__ import annotations

import logging
import sys

import click
from neo4j.exceptions import AuthError, ServiceUnavailable

from kgmem.cli.core import demo, init
from kgmem.cli.server import down, status, up
from kgmem.errors import KGMemError


class _Main(click.Group):
    """Turns kgmem's own errors into a one-line message and exit code 1 (no traceback)."""

    def invoke(self, ctx: click.Context):  # type: ignore[no-untyped-def]
        try:
            return super().invoke(ctx)
        except KGMemError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(1)
        except AuthError as exc:  # a wrong password is a setting, not a crash: one line, no traceback
            click.echo(
                f"error: Neo4j rejected the credentials (neo4j.user / neo4j.password, e.g. "
                f"KGMEM_NEO4J__PASSWORD): {exc.message or exc}",
                err=True,
            )
            sys.exit(1)
        except ServiceUnavailable as exc:
            click.echo(f"error: Neo4j is not reachable ({exc}); is it running? (`kgmem status`)", err=True)
            sys.exit(1)


@click.group(cls=_Main)
@click.option("-v", "--verbose", count=True, help="More logging (-v info, -vv debug).")
def main(verbose: int) -> None:
    """kgmem — a knowledge service that makes AI agents learn from experience."""
    level = logging.WARNING - 10 * min(verbose, 2)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")


for command in (up, down, status, init, demo):
    main.add_command(command)

from kgmem.cli.maintenance import decay, export_cmd, import_cmd, reindex  # noqa: E402
from kgmem.cli.report import report  # noqa: E402 - analyst surfaces

for command in (report, reindex, export_cmd, import_cmd, decay):
    main.add_command(command)

from kgmem.cli.learnings import learnings  # noqa: E402 - conversation knowledge

main.add_command(learnings)

from kgmem.cli.ingest import ingest  # noqa: E402 - retrieval
from kgmem.cli.search import search  # noqa: E402 - retrieval

main.add_command(search)
main.add_command(ingest)

from kgmem.cli.feedback import expire_overlays, feedback  # noqa: E402 - retrieval

main.add_command(feedback)
main.add_command(expire_overlays)

from kgmem.cli.learning import learning  # noqa: E402 - error→fix learning

main.add_command(learning)

from kgmem.cli.mcp import mcp_cmd  # noqa: E402 - agent-facing surfaces

main.add_command(mcp_cmd)

from kgmem.cli.forget import forget  # noqa: E402 - forgetting

main.add_command(forget)

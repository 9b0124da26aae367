"""``kgmem feedback``: judge the hits of an earlier search, from any process (query ids live in Neo4j);
``kgmem expire-overlays``: merge the BQAR overlays of sessions that never ended."""

from __future__ import annotations

import json

import click

from kgmem.config import load_settings
from kgmem.retrieval.feedback import LEVELS


def _outcome(value: str) -> str | float:
    if value in LEVELS:
        return value
    try:
        return float(value)
    except ValueError:
        raise click.BadParameter(f"{value!r}: choose one of {', '.join(LEVELS)} or a number in [-1, 1]") from None


@click.command()
@click.argument("query_id")
@click.option("--used", multiple=True, help="Id of a hit that was used (repeat the option for several).")
@click.option("--outcome", default="included", show_default=True, help=f"{', '.join(LEVELS)} or a number in [-1, 1].")
@click.option(
    "--response",
    default=None,
    help="The answer built on a `context` of this query; its [n] citations are the hits credited.",
)
@click.option(
    "--ns",
    default=None,
    help="The namespace the query ran in (default from settings); another namespace's query id is refused as unknown.",
)
@click.option(
    "--json", "as_json", is_flag=True, help="Print the judgement as JSON: query_id, counted, target, calls, posteriors."
)
def feedback(
    query_id: str, used: tuple[str, ...], outcome: str, response: str | None, ns: str | None, as_json: bool
) -> None:
    """Tell kgmem which hits of QUERY_ID (from `kgmem search --json` or any client) were used and how it went.

    Hits of the query not in --used get -0.1; a query made in a session updates that session's overlay
    until the session ends (afterwards the global posteriors). A query takes one judgement: running the
    command again (a retry) changes nothing and says so (exit code 0). The command acts inside one
    namespace (--ns, or the configured one): a query id of another namespace is refused as unknown.
    """
    from kgmem import KGMem

    with KGMem(load_settings()) as mem:
        judgement = mem.feedback(
            query_id,
            used=list(used),
            outcome=_outcome(outcome),
            response=response,
            ns=ns if ns is not None else mem.namespace,
        )
    if as_json:
        click.echo(json.dumps(judgement.to_dict(), default=str))
    elif judgement.counted:
        click.echo(f"feedback on {query_id}: {len(judgement.posteriors)} posteriors updated ({judgement.target})")
    else:
        click.echo(f"feedback on {query_id}: already judged ({judgement.target}); nothing changed")


@click.command("expire-overlays")
@click.option("--ns", default=None, help="Only this namespace (default: every namespace).")
@click.option(
    "--ttl-hours",
    type=float,
    default=None,
    help="Idle time after which a session counts as never ended (default [retrieval] overlay_ttl_hours).",
)
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    default=1000,
    show_default=True,
    help="At most this many sessions per run, oldest first.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the merged sessions as JSON.")
def expire_overlays(ns: str | None, ttl_hours: float | None, limit: int, as_json: bool) -> None:
    """Merge the BQAR overlays of sessions that never called end_session and have been idle longer than
    the TTL into the global posteriors (the same three-way merge as end_session: no feedback is lost)."""
    from kgmem import KGMem

    with KGMem(load_settings()) as mem:
        expired = mem.retrieval.expire_overlays(ns, ttl_hours, limit)
    if as_json:
        click.echo(
            json.dumps(
                [
                    {
                        "ns": e.ns,
                        "session": e.session,
                        "last_ms": e.last_ms,
                        "items": len(e.merges),
                        "conflicts": sum(m.conflict for m in e.merges),
                    }
                    for e in expired
                ]
            )
        )
        return
    for e in expired:
        click.echo(f"{e.ns}/{e.session}: {len(e.merges)} items merged")
    click.echo(f"expire-overlays: {len(expired)} idle sessions merged")

"""``kgmem forget``: erase a turn, a conversation, everything about a person, or a namespace."""

from __future__ import annotations

import json

import click

from kgmem.config import Settings


@click.command("forget")
@click.option(
    "--id", "item_id", default=None, help="One item: a turn, knowledge item, error pattern, fix or entity id."
)
@click.option("--session", default=None, help="A conversation: its turns and what only it taught.")
@click.option("--entity", default=None, help="Everything about one named entity or person.")
@click.option("--everything", is_flag=True, help="The whole namespace (asks to confirm).")
@click.option("--dry-run", is_flag=True, help="Only count (and list) what would be erased, per store.")
@click.option("--yes", is_flag=True, help="Do not ask to confirm --everything.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option(
    "--purge-disk",
    is_flag=True,
    help="After the forget (or alone): VACUUM the embedded Chroma database, so erased documents "
    "leave its file too (Neo4j: see docs/forgetting.md).",
)
@click.option("--ns", default=None, help="Namespace (default from settings).")
def forget(
    item_id: str | None,
    session: str | None,
    entity: str | None,
    everything: bool,
    dry_run: bool,
    yes: bool,
    as_json: bool,
    purge_disk: bool,
    ns: str | None,
) -> None:
    """Erase what a user asks to be forgotten from every store (graph, vectors, query log, overlays,
    spool, queued analysis) — exactly one of --id, --session, --entity, --everything — and print
    what was erased per store. It cannot be undone; --dry-run shows what would go.
    `kgmem report forgotten` lists past forgets."""
    from kgmem.client import KGMem
    from kgmem.config import load_settings, resolve_namespace
    from kgmem.forget import default_by, parse_scope

    settings = load_settings()
    if purge_disk and not (item_id or session or entity or everything):
        _purge(settings)
        return
    parse_scope(id=item_id, session=session, entity=entity, everything=everything)  # refused before connecting
    target = resolve_namespace(ns, settings.namespace)
    if everything and not dry_run and not yes:
        click.confirm(f"Erase everything in namespace {target!r}? This cannot be undone", abort=True)
    with KGMem(settings) as mem:
        result = mem.forget(
            id=item_id,
            session=session,
            entity=entity,
            everything=everything,
            dry_run=dry_run,
            by=default_by("cli"),
            ns=target,
        )
    if as_json:
        click.echo(json.dumps(result.to_dict(), indent=2))
        return
    verb = "would erase" if dry_run else "erased"
    click.echo(f"forget {result.scope} {result.target} in {target!r}: {verb} {result.total} record(s)")
    for store, counts in result.counts.items():
        if counts:
            click.echo(f"  {store:<10} " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    for label, ids in result.items.items():
        click.echo(f"  {label:<10} {len(ids)}: {' '.join(ids[:20])}{' ...' if len(ids) > 20 else ''}")
    if result.resumed:
        click.echo(f"  resumed interrupted forget(s): {', '.join(result.resumed)}")
    if purge_disk and not dry_run:
        _purge(settings)


def _purge(settings: Settings) -> None:
    from kgmem.forget.disk import purge_disk

    done = purge_disk(settings)
    click.echo(
        "neo4j: transaction logs past retention are pruned at its next checkpoint; "
        "docs/forgetting.md has the offline steps to drop them now"
    )
    if done.chroma_file:
        click.echo(
            f"chroma: {done.chroma_file} vacuumed ({done.chroma_bytes_before} -> {done.chroma_bytes_after} bytes)"
        )

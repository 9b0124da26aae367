"""`kgmem learnings list|add|edit|remove|reset|history` — look at and curate conversation knowledge."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import click

from kgmem.analysis.schema import KNOWLEDGE_TYPES
from kgmem.config import Settings, load_settings, resolve_namespace

_NS = click.option("--ns", default=None, help="Namespace (default from settings).")
_ID = click.option("--id", "item_id", required=True, help="The item's id (see `kgmem learnings list`).")


@contextmanager
def _graph_only(settings: Settings) -> Iterator[Any]:
    """A knowledge store and curator backed by Neo4j alone (no model load) for read/flag commands."""
    from kgmem.app import Engines

    with Engines(settings) as engines:
        yield engines.graph_only_curator()


def _echo_item(item: dict[str, Any]) -> None:
    flags = [f for f, on in (("manual", item.get("is_manual")), ("inactive", not item.get("is_active", True))) if on]
    click.echo(
        f"{item['id']}  {item['type']:<10} {item['confidence']:.3f}  seen {item.get('times_seen') or 0:<3} "
        f"{item.get('source') or '-':<7} {','.join(flags) or '-':<8} {item['content']}"
    )


@click.group()
def learnings() -> None:
    """List and curate what kgmem learnt from conversations (Knowledge items)."""


@learnings.command("list")
@click.option("--type", "ktype", type=click.Choice(KNOWLEDGE_TYPES), default=None, help="Only this type.")
@click.option("--min-confidence", type=click.FloatRange(0.0, 1.0), default=0.0, show_default=True)
@click.option("--all", "include_inactive", is_flag=True, help="Include removed (inactive) items.")
@click.option("--limit", type=click.IntRange(1, 100_000), default=100, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
@_NS
def list_cmd(
    ktype: str | None, min_confidence: float, include_inactive: bool, limit: int, as_json: bool, ns: str | None
) -> None:
    """Knowledge items, most trusted first."""
    settings = load_settings()
    with _graph_only(settings) as curator:
        items = curator.store.list(
            resolve_namespace(ns, settings.namespace, "--ns"),
            type=ktype,
            min_confidence=min_confidence,
            include_inactive=include_inactive,
            limit=limit,
        )
    if as_json:
        click.echo(json.dumps(items, indent=2, default=str))
        return
    if not items:
        click.echo("no knowledge items")
    for item in items:
        _echo_item(item)


@learnings.command("add")
@click.option("--type", "ktype", type=click.Choice(KNOWLEDGE_TYPES), required=True)
@click.option("--content", required=True, help="The knowledge, one sentence.")
@_NS
def add_cmd(ktype: str, content: str, ns: str | None) -> None:
    """Add a manual item (confidence 1.0; never decayed or penalised)."""
    from kgmem import KGMem

    with KGMem(load_settings()) as mem:
        _echo_item(mem.analysis.curator.add(ns or mem.namespace, ktype, content))


@learnings.command("edit")
@_ID
@click.option("--content", required=True, help="The new text.")
@_NS
def edit_cmd(item_id: str, content: str, ns: str | None) -> None:
    """Change an item's text (it is re-embedded; id and confidence stay)."""
    from kgmem import KGMem

    with KGMem(load_settings()) as mem:
        _echo_item(mem.analysis.curator.edit(ns or mem.namespace, item_id, content))


@learnings.command("remove")
@_ID
@_NS
def remove_cmd(item_id: str, ns: str | None) -> None:
    """Soft-remove an item (inactive; kept for history and so it is not re-learnt)."""
    settings = load_settings()
    with _graph_only(settings) as curator:
        _echo_item(curator.remove(resolve_namespace(ns, settings.namespace, "--ns"), item_id))


@learnings.command("reset")
@_ID
@_NS
def reset_cmd(item_id: str, ns: str | None) -> None:
    """Put an item back to the initial confidence (0.5), automatic and active."""
    settings = load_settings()
    with _graph_only(settings) as curator:
        _echo_item(curator.reset(resolve_namespace(ns, settings.namespace, "--ns"), item_id))


@learnings.command("history")
@click.argument("item_id", metavar="ID")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of lines.")
@_NS
def history_cmd(item_id: str, as_json: bool, ns: str | None) -> None:
    """How an item changed: it and the items it superseded or that superseded it, oldest first."""
    settings = load_settings()
    with _graph_only(settings) as curator:
        chain = curator.store.history(resolve_namespace(ns, settings.namespace, "--ns"), item_id)
    if as_json:
        click.echo(json.dumps(chain, indent=2, default=str))
        return
    for item in chain:
        until = item.get("valid_until") or "now"
        mark = "*" if item["id"] == item_id else " "
        click.echo(f"{mark} {item.get('valid_from') or '?'} .. {until}  {item['id']}  {item['content']}")

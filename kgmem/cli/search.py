"""``kgmem search``: Graph RAG search from the command line (one query, or many from a JSONL file)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from kgmem.config import load_settings
from kgmem.errors import ValidationError
from kgmem.retrieval import PRESETS


@click.command()
@click.argument("query", required=False)
@click.option("--ns", default=None, help="Namespace (default from settings).")
@click.option("--session", default=None, help="Only this session's conversation turns.")
@click.option("--kinds", default=None, help="Comma-separated: message,knowledge,error,fix,entity (default all).")
@click.option("--k", "k", default=10, show_default=True, type=click.IntRange(1, 1000), help="Number of hits.")
@click.option("--preset", type=click.Choice(sorted(PRESETS)), default=None, help="Search preset (default balanced).")
@click.option(
    "--as-of", "as_of", default=None, help="ISO-8601 date or time: what was valid then (default: current knowledge)."
)
@click.option("--json", "as_json", is_flag=True, help="One JSON document per query (hits with breakdown, provenance).")
@click.option(
    "--queries",
    "queries_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help='JSONL file of queries ({"query": ..., optional "ns", "session", "kinds", "k", "preset", "as_of"}), '
    "answered in one process.",
)
def search(
    query: str | None,
    ns: str | None,
    session: str | None,
    kinds: str | None,
    k: int,
    preset: str | None,
    as_of: str | None,
    as_json: bool,
    queries_file: Path | None,
) -> None:
    """Search what kgmem knows (vector + keyword legs, graph expansion, fusion, quality ranking)."""
    from kgmem import KGMem

    if (query is None) == (queries_file is None):
        raise click.UsageError("give either QUERY or --queries FILE")
    defaults: dict[str, Any] = {"ns": ns, "session": session, "kinds": kinds, "k": k, "preset": preset, "as_of": as_of}
    requests = [defaults | {"query": query}] if queries_file is None else list(_read_queries(queries_file, defaults))
    with KGMem(load_settings()) as mem:
        for req in requests:
            result = mem.search(
                req["query"],
                k=req["k"],
                ns=req["ns"],
                session=req["session"],
                kinds=req["kinds"],
                preset=req["preset"],
                as_of=req["as_of"],
            )
            if as_json:
                click.echo(json.dumps(result.to_dict(), ensure_ascii=False, default=str))
            else:
                _print_result(result)


def _read_queries(path: Path, defaults: dict[str, Any]):  # noqa: ANN202
    allowed = {"query", "ns", "session", "kinds", "k", "preset", "as_of"}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValidationError(f"{path}: line {number}: not valid JSON ({exc.msg})") from None
        if not isinstance(item, dict) or not isinstance(item.get("query"), str):
            raise ValidationError(f'{path}: line {number}: needs a "query" string')
        unknown = set(item) - allowed
        if unknown:
            raise ValidationError(f"{path}: line {number}: unknown field(s) {', '.join(sorted(unknown))}")
        yield defaults | item


def _print_result(result) -> None:  # noqa: ANN001
    click.echo(
        f"query_id {result.query_id}  ({len(result.hits)} hits, preset {result.preset}, "
        f"{result.timings_ms.get('total_ms', 0):.0f} ms)"
    )
    for i, hit in enumerate(result.hits, start=1):
        where = " ".join(x for x in (hit.session and f"session={hit.session}", hit.ref and f"ref={hit.ref}") if x)
        legs = "+".join(hit.provenance.legs)
        text = " ".join(hit.text.split())
        click.echo(f"{i:>3}. {hit.score:.4f} [{hit.kind}] ({legs}) {where}\n     {text[:200]}")
    sys.stdout.flush()

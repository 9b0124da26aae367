"""`kgmem reindex`, `kgmem export`, `kgmem import`, `kgmem decay` — batch maintenance."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click
from pydantic import ValidationError

from kgmem.config import EmbeddingSettings, Settings, load_settings, resolve_namespace

if TYPE_CHECKING:
    from kgmem.app import Engines


@contextmanager
def _engines(settings: Settings) -> Iterator[Engines]:
    """The composition root of one batch command (closed at its end)."""
    from kgmem.app import Engines

    logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)
    with Engines(settings) as engines:
        yield engines


def _bar(total: int, label: str):  # type: ignore[no-untyped-def]
    from tqdm import tqdm

    return tqdm(total=total, desc=label, unit="node", disable=None, leave=False)


@click.command()
@click.option("--ns", default=None, help="Namespace (default from settings).")
@click.option("--missing-only", is_flag=True, help="Only embed nodes flagged vector_pending or absent from Chroma.")
@click.option(
    "--model",
    default=None,
    help="[embedding] model to rebuild with (default from settings): minilm, minilm-int8, a model "
    "directory, an .onnx file or a cached sentence-transformers model name.",
)
@click.option(
    "--tokenizer",
    default=None,
    type=click.Path(exists=True, path_type=Path),
    help="[embedding] tokenizer: the tokenizer.json of an ONNX model that ships none.",
)
def reindex(ns: str | None, missing_only: bool, model: str | None, tokenizer: Path | None) -> None:
    """Rebuild the Chroma vectors of a namespace from Neo4j (the source of truth).

    A full rebuild adopts the configured embedding model: collections built with another model
    (or dimension) are dropped and refilled.
    """
    from kgmem.maintenance.reindex import reindex as run
    from kgmem.maintenance.reindex import total_nodes

    settings = load_settings()
    updates = {k: v for k, v in (("model", model), ("tokenizer", tokenizer)) if v is not None}
    if updates:
        try:
            embedding = EmbeddingSettings.model_validate({**settings.embedding.model_dump(), **updates})
        except ValidationError as exc:
            raise click.BadParameter("; ".join(e["msg"] for e in exc.errors()), param_hint="--model") from None
        settings = settings.model_copy(update={"embedding": embedding})
    with _engines(settings) as engines:
        ns = resolve_namespace(ns, engines.settings.namespace, "--ns")
        with _bar(total_nodes(engines.graph, ns), f"reindex {ns}") as bar:
            summary = run(
                engines.graph,
                engines.vectors,
                engines.embedder,
                ns,
                missing_only=missing_only,
                progress=bar.update,
                forgetter=engines.forgetter,
            )
    click.echo(f"reindex {ns} ({'missing only' if missing_only else 'full rebuild'}):")
    if summary.forgets_finished:
        click.echo(f"  interrupted forgets finished: {summary.forgets_finished}")
    for kind, st in summary.kinds.items():
        click.echo(
            f"  {kind:<9} nodes {st.nodes:>7}  embedded {st.embedded:>7}  repaired {st.repaired:>6}"
            f"  stale vectors removed {st.removed:>6}  forgotten {st.forgotten:>6}"
        )
    if summary.concept_df_fixed or summary.concept_orphans:
        click.echo(
            f"  concepts: {summary.concept_df_fixed} df recounted, {summary.concept_orphans} unmentioned removed"
        )
    click.echo(
        f"fixed: {summary.repaired} missing/pending vectors, "
        f"{sum(k.removed for k in summary.kinds.values())} stale vectors removed, "
        f"{sum(k.forgotten for k in summary.kinds.values())} forgotten nodes' vectors removed"
    )


@click.command("export")
@click.option("--ns", default=None, help="Namespace (default from settings).")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
def export_cmd(ns: str | None, file: Path) -> None:
    """Write a namespace (nodes, relationships, all properties, and its retrieval session state:
    query log, session overlays, session shift states) to FILE.jsonl."""
    from kgmem.maintenance import export_namespace

    settings = load_settings()
    ns = resolve_namespace(ns, settings.namespace, "--ns")
    with _engines(settings) as engines:
        summary = export_namespace(engines.graph, ns, file)
    click.echo(
        f"exported {ns}: {summary.total_nodes} nodes, {summary.total_relationships} relationships, "
        f"{summary.total_state} session-state entries -> {file}"
    )
    if summary.skipped:
        click.echo(
            f"warning: skipped (outside the allow-list, or written during the export): {dict(summary.skipped)}",
            err=True,
        )


@click.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--replace", is_flag=True, help="Delete the namespace (graph and vectors) first if it holds data.")
@click.option("--no-reindex", is_flag=True, help="Do not rebuild the namespace's vectors after the import.")
@click.option(
    "--ns",
    "target",
    default=None,
    help="Import into this namespace instead of the one the file names (a copy, or a move).",
)
def import_cmd(file: Path, replace: bool, no_reindex: bool, target: str | None) -> None:
    """Load FILE.jsonl (from `kgmem export`) into the namespace it names (or --ns)."""
    from kgmem.graph.schema import backfill_ns_key
    from kgmem.maintenance import import_namespace
    from kgmem.maintenance.importer import item_count
    from kgmem.maintenance.reindex import reindex as run_reindex

    settings = load_settings()
    with _engines(settings) as engines:
        graph, vectors, embedder = engines.graph, engines.vectors, engines.embedder
        with _bar(item_count(file), f"import {file.name}") as bar:
            summary = import_namespace(graph, file, replace=replace, vectors=vectors, progress=bar.update, ns=target)
        backfill_ns_key(graph, summary.ns)  # an export written before schema 4 has no ns_key: keyword search needs it
        click.echo(
            f"imported {summary.ns}: {sum(summary.nodes.values())} nodes, "
            f"{sum(summary.relationships.values())} relationships"
            + (" (namespace replaced)" if summary.replaced else "")
            + f"; {sum(summary.state.values())} session-state entries"
            + (f"; from namespace {summary.source}" if summary.source != summary.ns else "")
        )
        if summary.skipped:
            click.echo(
                f"warning: skipped: {dict(summary.skipped)} (query ids stay with the namespace that holds "
                "them; feedback on them judges it)",
                err=True,
            )
        if not no_reindex:
            result = run_reindex(graph, vectors, embedder, summary.ns)
            click.echo(f"vectors rebuilt: {sum(k.embedded for k in result.kinds.values())}")


@click.command()
@click.option("--ns", default=None, help="Namespace (default from settings).")
@click.option(
    "--stale-days",
    default=30,
    show_default=True,
    type=click.IntRange(0),
    help="Knowledge starts decaying after this many days unseen.",
)
@click.option(
    "--half-life-days",
    default=90.0,
    show_default=True,
    type=click.FloatRange(min=0, min_open=True),
    help="Confidence halves every N stale days.",
)
def decay(ns: str | None, stale_days: int, half_life_days: float) -> None:
    """Apply staleness decay to knowledge confidence and stale call-graph decay (batch job)."""
    from kgmem.maintenance import DecaySettings, run_decay

    settings = load_settings()
    ns = resolve_namespace(ns, settings.namespace, "--ns")
    with _engines(settings) as engines:
        result = run_decay(engines.graph, ns, DecaySettings(stale_days=stale_days, half_life_days=half_life_days))
    click.echo(
        f"decay {ns}: {result.knowledge_decayed} knowledge items lowered "
        f"(total {result.knowledge_total_drop:.3f}), {result.callgraph_decayed} call-graph edges lowered"
    )

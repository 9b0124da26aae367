"""`kgmem learning status|history`: what the error→fix engine has learnt."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import click

from kgmem.config import Settings, load_settings, resolve_namespace

if TYPE_CHECKING:
    from kgmem.app import Engines


@click.group()
def learning() -> None:
    """Inspect the error→fix learning engine."""


def _engines(settings: Settings) -> Engines:
    """The composition root for a graph-only command (no Chroma, no model)."""
    from kgmem.app import Engines

    return Engines(settings)


@learning.command()
@click.option("--ns", default=None, help="Namespace (default: the configured one).")
@click.option("--top", default=5, show_default=True, type=click.IntRange(0, 100), help="How many top errors to list.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def status(ns: str | None, top: int, as_json: bool) -> None:
    """Settings, counts by category, fixes, spool/replay/drop/quarantine counters and the top errors."""
    from kgmem.analysis import stats as analysis_stats
    from kgmem.learning.matching import DEFAULT_MODEL
    from kgmem.learning.report import learning_status

    settings = load_settings()
    namespace = resolve_namespace(ns, settings.namespace, "--ns")
    with _engines(settings) as engines:
        data = learning_status(engines.graph, settings, namespace, top)
    data["analysis"] = analysis_stats(settings, namespace)
    if as_json:
        click.echo(json.dumps(data, indent=2, default=str))
        return
    s = data["settings"]
    click.echo(f"namespace        {data['namespace']}")
    click.echo(
        f"settings         auto_apply ≥ {s['auto_apply_threshold']}  boost +{s['success_boost']}  "
        f"penalty −{s['failure_penalty']}  clamp [{s['confidence_min']}, {s['confidence_max']}]  "
        f"propagation {s['propagation_rate']}  match score ≥ {DEFAULT_MODEL.threshold}  strict={s['strict']}"
    )
    click.echo(
        f"error patterns   {data['patterns']} ({data['occurrences']} occurrences, "
        f"{data['similar_links']} SIMILAR_TO links, {data['vector_pending']} awaiting vectors)"
    )
    for c in data["by_category"]:
        click.echo(f"  {c['category']:<15}{c['patterns']:>6} patterns {c['occurrences']:>8} occurrences")
    click.echo(
        f"fixes            {data['fixes']} ({data['resolutions']} error→fix edges, "
        f"{data['auto_apply_fixes']} at auto-apply)"
    )
    sp = data["spool"]
    click.echo(
        f"spool            {sp['pending']} pending, {sp['spooled']} spooled, {sp['replayed']} replayed, "
        f"{sp['dropped']} dropped, {sp['quarantined']} quarantined ({sp['dir']})"
    )
    if "analysis" in data:
        a = data["analysis"]
        shown = {k: v for k, v in a.items() if isinstance(v, (int, float, str))} if isinstance(a, dict) else a
        click.echo(f"analysis         {shown}")
    if data["top_errors"]:
        click.echo("top errors")
        for e in data["top_errors"]:
            click.echo(f"  {e['occurrences']:>6}  {e['category']:<14} {e['tool']:<12} {e['pattern'][:90]}")


@learning.command()
@click.option("--ns", default=None, help="Namespace (default: the configured one).")
@click.option("--limit", default=20, show_default=True, type=click.IntRange(1, 10_000), help="How many patterns.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def history(ns: str | None, limit: int, as_json: bool) -> None:
    """The most recently seen error patterns with their best fix."""
    from kgmem.learning.report import learning_history

    settings = load_settings()
    with _engines(settings) as engines:
        rows = learning_history(engines.graph, resolve_namespace(ns, settings.namespace, "--ns"), limit)
    if as_json:
        click.echo(json.dumps(rows, indent=2, default=str))
        return
    if not rows:
        click.echo("no errors recorded")
    for r in rows:
        click.echo(f"{r['last_seen']}  ×{r['occurrences']:<5} {r['category']:<14} {r['tool']:<12} {r['pattern'][:100]}")
        fix = r["best_fix"]
        if fix:
            click.echo(
                f"    fix ({fix['source']}, {fix['confidence']:.2f}, {fix['successes']}✓ {fix['failures']}✗): "
                f"{fix['description'][:100]}"
            )

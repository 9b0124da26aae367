#!/usr/bin/env python
"""Evidence-retrieval quality of kgmem on LongMemEval (docs/retrieval.md has the figures).

Each question's history goes into a namespace of its own through ``KGMem.ingest`` (one session per
haystack session, its date as ``ts``, ``user`` / ``assistant`` as ``role``, ``"<session id>:<turn>"`` as
``ref``). Each question is asked once per system: turn-level recall@k / MRR over the turns marked
``has_answer``, and LongMemEval's session-level recall_any@k / recall_all@k (a session counts as found
when any of its turns is in the top k).

Systems side by side: ``kg-hybrid`` (both legs, no graph), ``kg-graphrag`` (the ``balanced`` preset with
``--set`` overrides) and one ``kg-<name>`` per ``--system name:key=value,key=value``.

    .venv/bin/python -m benchmarks.longmemeval --private-neo4j 27787:27574 \
        --system nohop:concept_hop=false [--data PATH] [--json OUT]
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
import time
import uuid
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchmarks.locomo import _pct, mean_scores, parse_overrides
from benchmarks.paths import SHARED_DATA
from benchmarks.scratch import cli_main, scratch_memory
from kgmem.retrieval.config import PRESETS, SearchConfig

DEFAULT_DATA = SHARED_DATA / "longmemeval-dev.json.gz"
KS = (5, 10, 20)


def lme_ts(value: str) -> str:
    """'2023/05/20 (Sat) 02:21' → ISO-8601 UTC."""
    day, _, clock = value.partition(") ")
    return datetime.strptime(f"{day.split(' (')[0]} {clock}", "%Y/%m/%d %H:%M").replace(tzinfo=UTC).isoformat()


def question_events(item: dict[str, Any]) -> tuple[list[dict[str, Any]], set[str]]:
    """The history as ingest events, and the refs of the evidence turns."""
    events, gold = [], set()
    for sid, date, session in zip(item["haystack_session_ids"], item["haystack_dates"], item["haystack_sessions"]):
        for i, turn in enumerate(session):
            if not turn["content"].strip():
                continue
            ref = f"{sid}:{i}"
            events.append(
                {
                    "type": "turn",
                    "session": sid,
                    "role": turn["role"],
                    "text": turn["content"],
                    "ref": ref,
                    "ts": lme_ts(date),
                }
            )
            if turn.get("has_answer"):
                gold.add(ref)
        events.append({"type": "session_end", "session": sid})
    return events, gold


def scores(ranked: list[str], gold: set[str], gold_sessions: set[str]) -> dict[str, float]:
    out: dict[str, float] = {}
    for k in KS:
        top = ranked[:k]
        out[f"recall@{k}"] = len(set(top) & gold) / len(gold) if gold else float("nan")
        found = {ref.rsplit(":", 1)[0] for ref in top}
        out[f"session_any@{k}"] = float(bool(found & gold_sessions))
        out[f"session_all@{k}"] = float(gold_sessions <= found)
    out["mrr"] = next((1.0 / i for i, ref in enumerate(ranked, start=1) if ref in gold), 0.0)
    return out


def newest_first(ranked: list[str], gold: set[str], when: dict[str, str]) -> float:
    """1.0 when the newest evidence turn (by its session's date) ranks above every older evidence turn,
    0.0 when it does not (or is not retrieved); NaN when the evidence has a single date (nothing changed)."""
    dates = {when[ref] for ref in gold}
    if len(dates) < 2:
        return float("nan")
    newest = max(dates)
    first = next((ref for ref in ranked if ref in gold), None)
    return float(first is not None and when[first] == newest)


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--set", dest="overrides", action="append", default=[], help="SearchConfig override key=value")
    ap.add_argument("--system", action="append", default=[], help="name:key=value,key=value (more systems)")
    ap.add_argument("--private-neo4j", default="", metavar="BOLT:HTTP")
    ap.add_argument(
        "--questions",
        default="",
        help="only these question ids or types, comma-separated, in this order (each history is ~500 turns to ingest)",
    )
    ap.add_argument("--limit", type=int, default=0, help="only the first N questions (0 = all)")
    return ap


def main(argv: list[str] | None = None) -> int:
    return cli_main(evaluate, _parser().parse_args(argv))


def evaluate(args: argparse.Namespace, settings: Any = None) -> dict[str, Any]:
    """The evaluation ``args`` describes on ``settings``' Neo4j (default: the environment's, or a private
    server with --private-neo4j); returns ``{"systems": {...}, "types": {...}}``."""
    with gzip.open(args.data, "rt", encoding="utf-8") as fh:
        data = json.load(fh)
    if args.questions:
        wanted = args.questions.split(",")
        data = [q for w in wanted for q in data if w in (q["question_id"], q["question_type"])]
        if not data:
            raise SystemExit(f"--questions: none of {wanted} in {args.data}")
    if args.limit:
        data = data[: args.limit]
    base = PRESETS["balanced"].with_overrides(**parse_overrides(args.overrides))
    systems: dict[str, SearchConfig] = {
        "kg-hybrid": base.with_overrides(name="hybrid", use_graph=False, use_quality=False),
        "kg-graphrag": base.with_overrides(name="graphrag"),
    }
    for spec in args.system:
        name, _, pairs = spec.partition(":")
        systems[f"kg-{name}"] = base.with_overrides(name=name, **parse_overrides(pairs.split(",") if pairs else []))
    run_id = uuid.uuid4().hex[:6]
    rows: dict[str, list[dict[str, float]]] = defaultdict(list)
    by_type: dict[tuple[str, str], list[dict[str, float]]] = defaultdict(list)
    latency: dict[str, list[float]] = defaultdict(list)
    with scratch_memory(settings, private_neo4j=args.private_neo4j, prefix="kgmem-lme-") as scratch:
        mem = scratch.mem
        for item in data:
            ns = f"eval-lme-{item['question_id']}-{run_id}"
            scratch.namespaces.append(ns)
            events, gold = question_events(item)
            when = {e["ref"]: e["ts"] for e in events if e["type"] == "turn"}
            report = mem.ingest(events, ns=ns)
            if report.errors:
                raise SystemExit(f"ingest errors: {report.errors[:3]}")
            gold_sessions = set(item["answer_session_ids"])
            for name, cfg in systems.items():
                t0 = time.perf_counter()
                result = mem.retrieval.search(item["question"], ns, k=20, config=cfg)
                latency[name].append((time.perf_counter() - t0) * 1000)
                ranked = [h.ref for h in result.hits if h.kind == "message"]
                s = scores(ranked, gold, gold_sessions)
                s["newest_first"] = newest_first(ranked, gold, when)
                rows[name].append(s)
                by_type[(name, item["question_type"])].append(s)
            print(
                f"{item['question_id']} ({item['question_type']}): {len(events)} events, "
                f"{report.seconds:.0f}s ingest; recall@10 "
                + ", ".join(f"{n} {rows[n][-1]['recall@10']:.2f}" for n in systems),
                flush=True,
            )

    cols = [
        "recall@5",
        "recall@10",
        "recall@20",
        "mrr",
        "session_any@5",
        "session_any@10",
        "session_all@10",
        "newest_first",
    ]
    print(f"\nLongMemEval ({args.data.name}): {len(data)} questions ({args.questions or 'all'}); search k=20")
    print("| system | " + " | ".join(cols) + " | p50 ms | p95 ms |\n" + "|---" * (len(cols) + 3) + "|")
    figures: dict[str, Any] = {"systems": {}, "types": {}}
    for name, per in rows.items():
        m = {c: statistics.fmean([r[c] for r in per if r[c] == r[c]] or [float("nan")]) for c in cols}
        figures["systems"][name] = {**m, "p50_ms": statistics.median(latency[name]), "p95_ms": _pct(latency[name], 95)}
        print(
            f"| {name} | "
            + " | ".join(f"{m[c]:.3f}" for c in cols)
            + f" | {statistics.median(latency[name]):.0f} | {_pct(latency[name], 95):.0f} |"
        )
    types = sorted({t for _, t in by_type})
    print("\nrecall@10 by question type:\n| system | " + " | ".join(types) + " |\n" + "|---" * (len(types) + 1) + "|")
    for name in rows:
        vals = {t: mean_scores(by_type[(name, t)])["recall@10"] for t in types}
        figures["types"][name] = vals
        print(f"| {name} | " + " | ".join(f"{vals[t]:.3f}" for t in types) + " |")
    figures["questions"] = len(data)
    return figures


def run(settings: Any, quick: bool = False) -> dict[str, Any]:
    """Figures ``<system>.<measure>`` (``kg-graphrag.recall_at_10``, ``kg-hybrid.session_any_at_5``, ``…p95_ms``)
    and ``<system>.type.<question type>.recall_at_10``. Quick: the first 2 questions (~1,000 turns to ingest)."""
    figures = evaluate(_parser().parse_args(["--limit", "2"] if quick else []), settings)
    out: dict[str, Any] = {"questions": figures["questions"]}
    for name, measures in figures["systems"].items():
        for key, value in measures.items():
            out[f"{name}.{key.replace('@', '_at_')}"] = value
    for name, types in figures["types"].items():
        for kind, value in types.items():
            out[f"{name}.type.{kind}.recall_at_10"] = value
    return out


if __name__ == "__main__":
    sys.exit(main())

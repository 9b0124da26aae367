#!/usr/bin/env python
"""Benchmark conversation ingestion with analysis off and on (offline extractor).

A standalone study (listed by ``python -m benchmarks list``): the runner does not run it and its
figures are not recorded in benchmarks/results.json; no registered benchmark imports it.

Measures, on the real stack (Neo4j + Chroma + the embedding model):

* turns/s through ``KGMem.turn()`` with analysis disabled, enabled, and enabled with
  write-behind turn storage (``[analysis] write_behind``);
* with analysis on, the end-to-end rate (until the worker has analysed every window);
* the buffer's cost on the caller's thread (``AnalysisService.observe``) and ``turn()``
  latency percentiles (the model is loaded and warmed before timing).

Conversations: the LoCoMo dev file when present (read in place, never copied), else a
synthetic one. Every run uses fresh namespaces, deleted afterwards.

    .venv/bin/python -m benchmarks.analysis [--turns 300] [--data ../shared/data/locomo-dev.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from benchmarks.paths import SHARED_DATA

MODES = ("off", "on", "write-behind")
DEFAULT_DATA = SHARED_DATA / "locomo-dev.json"


def load_turns(path: Path, limit: int) -> list[tuple[str, str, str]]:
    """(session, speaker, text) in order; LoCoMo sessions become kgmem sessions."""
    turns: list[tuple[str, str, str]] = []
    if path.is_file():
        for sample in json.loads(path.read_text(encoding="utf-8")):
            conv = sample["conversation"]
            n = 1
            while f"session_{n}" in conv and len(turns) < limit:
                for t in conv[f"session_{n}"]:
                    turns.append((f"{sample['sample_id']}-s{n}", t["speaker"], t["text"]))
                n += 1
    if not turns:  # synthetic fallback
        phrases = [
            "I prefer tabs over spaces.",
            "The deploy target is staging.",
            "Sounds good!",
            "My name is Dana.",
            "Always run the tests first.",
            "What do you think?",
        ]
        turns = [
            (f"syn-s{i // 20}", "user" if i % 2 == 0 else "assistant", phrases[i % len(phrases)] + f" ({i})")
            for i in range(limit)
        ]
    return turns[:limit]


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def run(mode: str, turns: list[tuple[str, str, str]], base: Any, driver: Any, embedder: Any) -> dict[str, Any]:
    from kgmem import KGMem
    from kgmem.maintenance import delete_namespace

    ns = f"bench-analysis-{mode}-{uuid.uuid4().hex[:8]}"
    with tempfile.TemporaryDirectory() as tmp:
        analysis = base.analysis.model_copy(update={"enabled": mode != "off", "write_behind": mode == "write-behind"})
        anthropic = base.anthropic.model_copy(update={"api_key": None})  # offline extractor
        settings = base.model_copy(
            update={
                "namespace": ns,
                "analysis": analysis,
                "anthropic": anthropic,
                "chroma": base.chroma.model_copy(update={"path": Path(tmp) / "chroma"}),
                "home": Path(tmp) / "home",
            }
        )
        mem = KGMem(settings, driver=driver, embedder=embedder)
        observe = mem.analysis.observe
        observe_ms: list[float] = []

        def timed_observe(*args: Any) -> None:  # wrap to time the buffer's share of turn()
            t = time.perf_counter()
            observe(*args)
            observe_ms.append((time.perf_counter() - t) * 1000)

        mem.analysis.observe = timed_observe  # type: ignore[method-assign]
        turn_ms: list[float] = []
        start = time.perf_counter()
        for i, (session, speaker, text) in enumerate(turns):
            t = time.perf_counter()
            mem.turn(session=session, role=speaker, text=text, ref=str(i))
            turn_ms.append((time.perf_counter() - t) * 1000)
        ingest_s = time.perf_counter() - start
        sessions = sorted({s for s, _, _ in turns})
        for session in sessions:
            mem.end_session(session)
        mem.wait_for_analysis(600)
        total_s = time.perf_counter() - start
        stats = mem.analysis_stats()
        mem.close()
        delete_namespace(mem.graph, None, ns)
    return {
        "mode": mode,
        "turns": len(turns),
        "sessions": len(sessions),
        "turns_per_s": len(turns) / ingest_s,
        "end_to_end_turns_per_s": len(turns) / total_s,
        "turn_p50_ms": statistics.median(turn_ms),
        "turn_p95_ms": pct(turn_ms, 95),
        "turn_p99_ms": pct(turn_ms, 99),
        "observe_p50_ms": statistics.median(observe_ms) if observe_ms else 0.0,
        "observe_p95_ms": pct(observe_ms, 95) if observe_ms else 0.0,
        "observe_max_ms": max(observe_ms) if observe_ms else 0.0,
        "inserted": stats["inserted"],
        "merged": stats["merged"],
        "contradicted": stats["contradicted"],
        "skipped": stats["skipped"],
        "dropped": stats["dropped"],
        "analyses": stats.get("analyses", 0),
    }


def turn_store_breakdown(base: Any, driver: Any, embedder: Any, n: int = 60) -> dict[str, tuple[float, float]]:
    """Where a synchronous turn's time goes: p50/p95 ms of each step of ``TurnStore.record``."""
    from kgmem.conversation import Turn, TurnStore
    from kgmem.graph import GraphStore
    from kgmem.maintenance import delete_namespace
    from kgmem.vectors import VectorStore, open_chroma

    ns = f"bench-turnstore-{uuid.uuid4().hex[:8]}"
    times: dict[str, list[float]] = {
        "graph write (record)": [],
        "embedding": [],
        "chroma upsert": [],
        "graph write (clear pending)": [],
        "total": [],
    }
    with tempfile.TemporaryDirectory() as tmp:
        settings = base.model_copy(update={"chroma": base.chroma.model_copy(update={"path": Path(tmp)})})
        graph, vectors = GraphStore(driver, base.neo4j.database), VectorStore(open_chroma(settings))

        def timed(name: str, fn: Any) -> Any:
            def wrapper(*a: Any, **k: Any) -> Any:
                t = time.perf_counter()
                try:
                    return fn(*a, **k)
                finally:
                    times[name(a) if callable(name) else name].append((time.perf_counter() - t) * 1000)

            return wrapper

        class Timed:  # the real objects, with their calls timed
            def __init__(self, obj: Any, **methods: Any) -> None:
                self._obj = obj
                for attr, label in methods.items():
                    setattr(self, attr, timed(label, getattr(obj, attr)))

            def __getattr__(self, attr: str) -> Any:
                return getattr(self._obj, attr)

        store = TurnStore(
            Timed(graph, write=lambda a: "graph write (record)" if "record" in a[0] else "graph write (clear pending)"),
            Timed(vectors, upsert="chroma upsert"),
            Timed(embedder, embed="embedding"),
        )
        for i in range(n):
            t = time.perf_counter()
            store.record(ns, [Turn("s", "user", f"hello there, this is turn number {i}")])
            times["total"].append((time.perf_counter() - t) * 1000)
        delete_namespace(graph, None, ns)
    return {k: (statistics.median(v), pct(v, 95)) for k, v in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--json", action="store_true", help="print raw results as JSON")
    args = parser.parse_args()

    from kgmem.config import load_settings
    from kgmem.graph import GraphStore, connect
    from kgmem.graph.schema import apply_schema
    from kgmem.vectors import Embedder

    base = load_settings()
    turns = load_turns(args.data, args.turns)
    with connect(base) as driver:
        apply_schema(GraphStore(driver, base.neo4j.database))
        embedder = Embedder(base.embedding, base.models_dir)
        embedder.embed(["warm-up"] * 8)  # exclude the first model load from the timings
        results = [run(mode, turns, base, driver, embedder) for mode in MODES]
        breakdown = turn_store_breakdown(base, driver, embedder)
    if args.json:
        print(json.dumps(results, indent=2))
        return
    keys = [
        "turns_per_s",
        "end_to_end_turns_per_s",
        "turn_p50_ms",
        "turn_p95_ms",
        "turn_p99_ms",
        "observe_p50_ms",
        "observe_p95_ms",
        "observe_max_ms",
        "analyses",
        "inserted",
        "merged",
        "contradicted",
        "skipped",
        "dropped",
    ]
    print(
        f"{len(turns)} turns in {results[0]['sessions']} sessions "
        f"({'LoCoMo dev' if args.data.is_file() else 'synthetic'}), embedding backend {embedder.backend}"
    )
    print(f"{'metric':<24}" + "".join(f"{'analysis ' + m:>24}" for m in MODES))
    for key in keys:
        cells = [r[key] for r in results]
        print(f"{key:<24}" + "".join(f"{v:>24.3f}" if isinstance(v, float) else f"{v:>24}" for v in cells))
    print("\nsynchronous TurnStore.record, one turn per call (ms):  p50     p95")
    for step, (p50, p95) in breakdown.items():
        print(f"  {step:<32}{p50:>10.1f}{p95:>8.1f}")


if __name__ == "__main__":
    main()

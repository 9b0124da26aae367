"""Benchmark the concept reports and the "What do we know about X" starter on a synthetic namespace.

Usage (needs a running Neo4j; settings as for every kgmem command):

    .venv/bin/python -m benchmarks.concept_reports [--memories 20000] [--concepts 5000]

The namespace imitates a conversation store: a speaker concept in 90% of the memories, the other
concepts drawn with Zipf-like popularity (a few very common, a long tail), 3-10 concepts per memory,
and 1% long documents with 300 concepts each (the case `per_memory` bounds). It is written with
the Cypher files in cypher/bench/, timed (median of 3 runs per query), and deleted at the end.
Figures go to stdout as a Markdown table.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
import uuid
from datetime import UTC, datetime
from typing import Any

from kgmem.config import load_settings
from kgmem.graph import GraphStore, connect
from kgmem.maintenance import delete_namespace
from kgmem.reports import run_report
from kgmem.reports.guide import load_starters

LABELS = ["Message"] * 14 + ["Knowledge"] * 3 + ["ErrorPattern"] * 2 + ["Fix"]
BATCH = 2000


def synthetic(n_memories: int, n_concepts: int, seed: int = 11) -> tuple[list[dict], list[dict]]:
    """(concepts with df, memories with the positions of the concepts they mention)."""
    rnd = random.Random(seed)
    weights = [1.0 / (rank + 1) ** 1.1 for rank in range(n_concepts)]
    now = datetime.now(UTC).isoformat()
    memories = []
    for i in range(n_memories):
        long_doc = rnd.random() < 0.01
        k = 300 if long_doc else rnd.randint(3, 10)
        chosen = set(rnd.choices(range(1, n_concepts), weights=weights[1:], k=k))
        if rnd.random() < 0.9:
            chosen.add(0)  # the speaker
        memories.append(
            {
                "label": rnd.choice(LABELS),
                "id": f"bm{i:07d}",
                "text": f"memory {i}",
                "ts": now,
                "concepts": sorted(chosen),
            }
        )
    df = [0] * n_concepts
    for m in memories:
        for c in m["concepts"]:
            df[c] += 1
    concepts = [
        {
            "id": f"bc{c:07d}",
            "key": "speaker" if c == 0 else f"concept {c}",
            "name": "Speaker" if c == 0 else f"Concept {c}",
            "kind": "entity" if c % 3 == 0 else "phrase",
            "df": df[c],
        }
        for c in range(n_concepts)
    ]
    return concepts, memories


def timed(fn: Any, runs: int = 3) -> tuple[Any, float]:
    times, result = [], None
    for _ in range(runs):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return result, statistics.median(times)


CASES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("top_concepts", {}),
    ("top_concepts", {"kind": "entity", "limit": 100}),
    ("concept_cooccurrence", {}),
    ("concept_cooccurrence", {"order_by": "pmi", "min_count": 5}),
    ("concept_cooccurrence", {"max_df_share": 1.0}),
    ("concept_cooccurrence", {"max_df_share": 1.0, "per_memory": 50}),
)
ASKED = ("Concept 7", "concept 400", "speaker")


def measure(settings: Any, n_memories: int, n_concepts: int) -> list[tuple[str, float, str]]:
    """(query, median ms of 3, what it returned) for every concept report, the yardstick and the starter,
    on a synthetic namespace of ``n_memories`` memories and ``n_concepts`` concepts (dropped afterwards)."""
    driver = connect(settings)
    graph = GraphStore(driver, settings.neo4j.database)
    ns = f"bench-concept-reports-{uuid.uuid4().hex[:8]}"
    concepts, memories = synthetic(n_memories, n_concepts)
    rows: list[tuple[str, float, str]] = []
    try:
        start = time.perf_counter()
        graph.write("bench/concept_graph_concepts", ns=ns, rows=concepts)
        mentions = 0
        for i in range(0, len(memories), BATCH):
            mentions += graph.write("bench/concept_graph_seed", ns=ns, rows=memories[i : i + BATCH])[0]["mentions"]
        rows.append(("seed", (time.perf_counter() - start) * 1000, f"{mentions} MENTIONS"))
        for name, params in CASES:
            result, seconds = timed(lambda: run_report(graph, name, {"ns": ns, **params}))  # noqa: B023
            shown = " ".join(f"{k}={v}" for k, v in params.items())
            rows.append((f"report {name} {shown}".strip(), seconds * 1000, f"{len(result.rows)} rows"))
        result, seconds = timed(lambda: graph.read("bench/reference_aggregation", rows=400_000, groups=190_000))
        rows.append(("yardstick: group 400,000 rows, no graph", seconds * 1000, f"{result[0]['pairs']} pairs"))
        starter = next(s for s in load_starters() if s.name == "concept")
        for asked in ASKED:
            records, seconds = timed(
                lambda: (
                    driver.execute_query(starter.query, ns=ns, concept=asked, database_=settings.neo4j.database).records  # noqa: B023
                )
            )
            drawn = len(records[0]["memories"]) if records else 0
            rows.append((f"starter concept={asked}", seconds * 1000, f"{drawn} memories"))
    finally:
        delete_namespace(graph, None, ns)
        driver.close()
    return rows


def run(settings: Any, quick: bool = False) -> dict[str, float]:
    """``<query>.ms`` (median of 3) for the concept reports and the *What do we know about X* starter on a
    synthetic namespace, and the machine yardstick. Quick: 2,000 memories / 500 concepts; full: 20,000 /
    5,000."""
    memories, concepts = (2000, 500) if quick else (20000, 5000)
    out: dict[str, float] = {"memories": memories, "concepts": concepts}
    for name, ms, _ in measure(settings, memories, concepts):
        out[f"{name}.ms"] = ms
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=20000)
    parser.add_argument("--concepts", type=int, default=5000)
    args = parser.parse_args()
    print(f"{args.memories:,} memories, {args.concepts:,} concepts\n")
    print("| query | time (median of 3) | result |\n|---|---|---|")
    for name, ms, what in measure(load_settings(), args.memories, args.concepts):
        print(f"| {name} | {ms:.0f} ms | {what} |")


if __name__ == "__main__":
    main()

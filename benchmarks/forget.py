"""Forgetting a long session: how long ``forget(session=...)`` takes for a 10,000-turn session
(quick: 1,000), batched (UNWIND batches of ``[forget] batch_size``, Chroma deletes of
``[forget] vector_batch_size``), its dry run, and how long a search of another session waits while
the forget runs, next to the forget's own steps: a batch (its graph transaction with its vectors'
deletes beside it) and the longest single step (a graph transaction, a Chroma delete, a read of its
plan).

The session's turns are real sentences (generated from a small vocabulary, so the concept graph has
mentions to count down); their vectors are random unit vectors handed to the turn store (the model
is not the subject here). A second session of 200 turns is searched in a loop while the forget runs;
its p95 and worst latency while the forget runs, against the same loop's for a while before (at the
same machine load) and the forget's longest step, show whether the forget holds anything a search
needs for longer than a batch. Everything runs
in namespaces of its own on the Neo4j ``settings`` point at, in a temporary Chroma directory, removed
afterwards.

    python -m benchmarks.forget [--quick]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from kgmem import KGMem
from kgmem.config import ChromaSettings, Settings, load_settings
from kgmem.conversation import Turn
from kgmem.maintenance import delete_namespace

PEOPLE = ["Alice Moreno", "Bashir Khan", "Chen Wei", "Dana Ortiz", "Emeka Obi", "Freya Lind"]
PLACES = ["the harbour", "Lisbon", "the night market", "the climbing gym", "the library", "Kyoto"]
THINGS = ["a sourdough starter", "the quarterly report", "a broken bicycle", "jazz records", "the garden shed"]
INSERT_BATCH = 500
#: seconds the search loop runs without a forget first (quick, full): its latencies at the same load
BASELINE_S = {True: 5.0, False: 10.0}


def _sentences(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [
        f"{rng.choice(PEOPLE)} talked about {rng.choice(THINGS)} at {rng.choice(PLACES)} (note {i})." for i in range(n)
    ]


def _vectors(n: int, dim: int, seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _load(mem: KGMem, ns: str, session: str, n: int, seed: int) -> None:
    texts = _sentences(n, seed)
    vecs = _vectors(n, mem.embedder.dimension, seed)
    for start in range(0, n, INSERT_BATCH):
        turns = [
            Turn(session, "user" if i % 2 == 0 else "assistant", texts[i], ref=str(i))
            for i in range(start, min(n, start + INSERT_BATCH))
        ]
        mem.turns.record(ns, turns, vecs[start : start + len(turns)])


@contextmanager
def _steps(io: Any) -> Iterator[list[tuple[str, float]]]:
    """The forget's requests through ``io`` while inside, from any thread (a batch's vector deletes run
    beside its graph write): (request, seconds) each. Searches make none of these requests."""
    steps: list[tuple[str, float]] = []
    handle: Callable[[Any], Any] = io.handle

    def timed(req: Any) -> Any:
        name = getattr(req, "name", None)
        kind = type(req).__name__
        if not (isinstance(name, str) and name.startswith("forget/")) and kind not in ("VectorDelete", "Gather"):
            return handle(req)
        t = time.perf_counter()
        try:
            return handle(req)
        finally:
            steps.append((f"{kind}:{name or getattr(req, 'kind', 'batch')}", time.perf_counter() - t))

    io.handle = timed
    try:
        yield steps
    finally:
        del io.handle


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 1)


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] if ordered else 0.0


@contextmanager
def _searching(mem: KGMem, queries: list[str]) -> Iterator[list[float]]:
    """Another session searched in a loop on a thread while inside: the latency of each search."""
    took: list[float] = []
    stop = threading.Event()

    def loop() -> None:
        i = 0
        while not stop.is_set():
            t = time.perf_counter()
            mem.search(queries[i % len(queries)], kinds=["message"], session="other")
            took.append(time.perf_counter() - t)
            i += 1

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield took
    finally:
        stop.set()
        thread.join(60)


def run(settings: Settings, quick: bool = False) -> dict[str, float | int | str]:
    """Figures of forgetting one long session (see the module docstring)."""
    turns = 1_000 if quick else 10_000
    ns = f"bench-forget-{uuid.uuid4().hex[:8]}"
    with tempfile.TemporaryDirectory() as tmp:
        s = settings.model_copy(
            update={"namespace": ns, "chroma": ChromaSettings(path=Path(tmp) / "chroma"), "home": Path(tmp) / "home"}
        )
        with KGMem(s) as mem:
            try:
                _load(mem, ns, "long", turns, seed=1)
                _load(mem, ns, "other", 200, seed=2)
                queries = _sentences(20, seed=3)
                for q in queries[:3]:  # warm: the model loaded, the query cache filled
                    mem.search(q, kinds=["message"], session="other")
                # the same search loop for a while without a forget: its latencies at this machine's load
                with _searching(mem, queries) as before:
                    time.sleep(BASELINE_S[quick])

                t = time.perf_counter()
                dry = mem.forget(session="long", dry_run=True)
                dry_s = time.perf_counter() - t

                with _searching(mem, queries) as during:
                    t = time.perf_counter()
                    with _steps(mem.turns.io) as steps:
                        done = mem.forget(session="long")
                    forget_s = time.perf_counter() - t
                batch = s.forget.batch_size
                batches = [d for name, d in steps if name == "Gather:batch"]  # a graph batch with its vectors
                steps = [st for st in steps if st[0] != "Gather:batch"]
                longest = max(steps, key=lambda st: st[1])
                graph = [d for name, d in steps if name == "Write:forget/erase_batch"]
                vector = [d for name, d in steps if name.startswith("VectorDelete")]
                plan = [d for name, d in steps if name.startswith("Read:forget/")]
                tombstones = [d for name, d in steps if name == "Write:forget/tombstone"]
                return {
                    "session_turns": turns,
                    "batch_size": batch,
                    "batches": -(-turns // batch),
                    "vector_batch_size": s.forget.vector_batch_size,
                    "forget.seconds": round(forget_s, 3),
                    "forget.turns_per_second": round(turns / forget_s, 1),
                    "forget.dry_run_seconds": round(dry_s, 3),
                    "erased.messages": int(done.counts["graph"].get("Message", 0)),
                    "erased.vectors": int(done.counts["vectors"].get("message", 0)),
                    "erased.relationships": int(done.counts["graph"].get("relationships", 0)),
                    "erased.concepts": int(done.counts["graph"].get("concepts", 0)),
                    "dry_run.messages": int(dry.counts["graph"].get("Message", 0)),
                    "search_other_session.p50_ms_before": _ms(statistics.median(before)),
                    "search_other_session.p95_ms_before": _ms(_p95(before)),
                    "search_other_session.max_ms_before": _ms(max(before)),
                    "forget.longest_step_ms": _ms(longest[1]),
                    "forget.longest_step": longest[0],
                    "forget.plan_reads_seconds": round(sum(plan), 3),
                    "forget.tombstones_seconds": round(sum(tombstones), 3),
                    "forget.graph_batches_seconds": round(sum(graph), 3),
                    "forget.vector_deletes_seconds": round(sum(vector), 3),
                    "forget.batch_max_ms": _ms(max(batches, default=0.0)),
                    "forget.graph_batch_max_ms": _ms(max(graph, default=0.0)),
                    "forget.vector_delete_max_ms": _ms(max(vector, default=0.0)),
                    "search_other_session.p50_ms_during": _ms(statistics.median(during)) if during else 0.0,
                    "search_other_session.p95_ms_during": _ms(_p95(during)),
                    "search_other_session.max_ms_during": _ms(max(during, default=0.0)),
                    "search_other_session.searches_during": len(during),
                }
            finally:
                mem.forget(everything=True, by="benchmark")
                delete_namespace(mem.graph, None, ns)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a 1,000-turn session instead of 10,000")
    args = parser.parse_args()
    print(json.dumps(run(load_settings(), quick=args.quick), indent=2))


if __name__ == "__main__":
    main()

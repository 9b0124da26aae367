"""Forgetting a long session: how long ``forget(session=...)`` takes for a 10,000-turn session
(quick: 1,000), batched (UNWIND batches of ``[forget] batch_size``, Chroma deletes per batch), its
dry run, and how long a search of another session waits while the forget runs.

The session's turns are real sentences (generated from a small vocabulary, so the concept graph has
mentions to count down); their vectors are random unit vectors handed to the turn store (the model
is not the subject here). A second session of 200 turns is searched in a loop while the forget runs;
its worst latency, against its median before, shows whether the forget holds locks longer than a
batch. Everything runs in namespaces of its own on the Neo4j ``settings`` point at, in a temporary
Chroma directory, removed afterwards.

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
from pathlib import Path

import numpy as np

from kgmem import KGMem
from kgmem.config import ChromaSettings, Settings, load_settings
from kgmem.conversation import Turn

PEOPLE = ["Alice Moreno", "Bashir Khan", "Chen Wei", "Dana Ortiz", "Emeka Obi", "Freya Lind"]
PLACES = ["the harbour", "Lisbon", "the night market", "the climbing gym", "the library", "Kyoto"]
THINGS = ["a sourdough starter", "the quarterly report", "a broken bicycle", "jazz records", "the garden shed"]
INSERT_BATCH = 500


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
                before = []
                for q in queries:
                    t = time.perf_counter()
                    mem.search(q, kinds=["message"], session="other")
                    before.append(time.perf_counter() - t)

                t = time.perf_counter()
                dry = mem.forget(session="long", dry_run=True)
                dry_s = time.perf_counter() - t

                during: list[float] = []
                stop = threading.Event()

                def searcher() -> None:
                    i = 0
                    while not stop.is_set():
                        t0 = time.perf_counter()
                        mem.search(queries[i % len(queries)], kinds=["message"], session="other")
                        during.append(time.perf_counter() - t0)
                        i += 1

                thread = threading.Thread(target=searcher, daemon=True)
                thread.start()
                t = time.perf_counter()
                done = mem.forget(session="long")
                forget_s = time.perf_counter() - t
                stop.set()
                thread.join(60)
                batch = s.forget.batch_size
                return {
                    "session_turns": turns,
                    "batch_size": batch,
                    "batches": -(-turns // batch),
                    "forget.seconds": round(forget_s, 3),
                    "forget.turns_per_second": round(turns / forget_s, 1),
                    "forget.dry_run_seconds": round(dry_s, 3),
                    "erased.messages": int(done.counts["graph"].get("Message", 0)),
                    "erased.vectors": int(done.counts["vectors"].get("message", 0)),
                    "erased.relationships": int(done.counts["graph"].get("relationships", 0)),
                    "erased.concepts": int(done.counts["graph"].get("concepts", 0)),
                    "dry_run.messages": int(dry.counts["graph"].get("Message", 0)),
                    "search_other_session.p50_ms_before": round(statistics.median(before) * 1000, 1),
                    "search_other_session.max_ms_during": round(max(during) * 1000, 1) if during else 0.0,
                    "search_other_session.searches_during": len(during),
                }
            finally:
                mem.forget(everything=True, by="benchmark")
                mem.graph.write_autocommit("maintenance/delete_namespace", ns=ns)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a 1,000-turn session instead of 10,000")
    args = parser.parse_args()
    print(json.dumps(run(load_settings(), quick=args.quick), indent=2))


if __name__ == "__main__":
    main()

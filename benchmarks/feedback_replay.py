#!/usr/bin/env python
"""How often a replayed judgement counts, and what a feedback call costs.

On a fresh namespace of the local Neo4j (deleted afterwards) with three facts: a search, then
``feedback(qid, used=[top hit], outcome="success")`` replayed N times — sequentially (N = 1, 2, 5),
from 8 threads at once, and from two processes at once (4 threads each) — and the top hit's global
alpha read back: ``counted = (alpha after − alpha before) / 0.8``. Then late feedback: a session's
query judged after ``end_session`` (how much reaches the global alpha at once, overlays left).
Then the latency of a first judgement and of a repeat (median over ``--reps`` queries).

Works against older kgmem too (it only reads alpha), so the same command measures "before".

    PYTHONPATH=$PWD .venv/bin/python -m benchmarks.feedback_replay [--reps 20] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from kgmem import KGMem
from kgmem.config import ChromaSettings, load_settings

FACTS = [
    "The staging database is restored from the nightly snapshot at 02:00.",
    "Staging database credentials rotate every Monday morning.",
    "Office plants are watered on Fridays by the facilities team.",
]
QUERY = "staging database"
SUCCESS = 0.8


def alpha(mem: KGMem, item: str) -> float:
    records, _, _ = mem.driver.execute_query(
        "MATCH (n:Knowledge {ns: $ns, id: $id}) RETURN n.alpha AS a", ns=mem.namespace, id=item
    )
    return records[0]["a"] or 1.0


def counted(mem: KGMem, item: str, before: float) -> float:
    return round((alpha(mem, item) - before) / SUCCESS, 3)


def judge_in_threads(mem: KGMem, qid: str, item: str, threads: int) -> None:
    barrier = threading.Barrier(threads)

    def one() -> None:
        barrier.wait()
        mem.retrieval.feedback(qid, [item], "success")

    workers = [threading.Thread(target=one) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()


def worker(qid: str, item: str, threads: int, start_at: float) -> None:
    """``--worker``: a second process judging ``qid`` from ``threads`` threads at ``start_at``."""
    from kgmem.graph import GraphStore, connect
    from kgmem.retrieval import Retrieval

    settings = load_settings()
    with connect(settings) as driver:
        retrieval = Retrieval(GraphStore(driver, settings.neo4j.database), None, None)  # type: ignore[arg-type]
        barrier = threading.Barrier(threads)

        def one() -> None:
            barrier.wait()
            retrieval.feedback(qid, [item], "success")

        workers = [threading.Thread(target=one) for _ in range(threads)]
        time.sleep(max(0.0, start_at - time.time()))
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        retrieval.close()


def replay(reps: int) -> dict[str, Any]:
    from kgmem.maintenance import delete_namespace

    ns = f"bench-feedback-{uuid.uuid4().hex[:8]}"
    tmp = tempfile.mkdtemp(prefix="bench-feedback-")
    settings = load_settings(namespace=ns)
    settings = settings.model_copy(update={"chroma": ChromaSettings(path=Path(tmp) / "chroma")})
    out: dict[str, Any] = {"ns": ns}
    with KGMem(settings) as mem:
        try:
            facts = [mem.add_knowledge(t, "fact")["id"] for t in FACTS]
            mem.wait_for_analysis(60)

            def fresh_query(session: str | None = None) -> tuple[str, str, float]:
                result = mem.search(QUERY, k=10, session=session, kinds="knowledge")
                item = result.hits[0].id
                assert item in facts
                return result.query_id, item, alpha(mem, item)

            for n in (1, 2, 5):
                qid, item, before = fresh_query()
                for _ in range(n):
                    mem.retrieval.feedback(qid, [item], "success")
                out[f"sequential x{n}"] = counted(mem, item, before)
            qid, item, before = fresh_query()
            judge_in_threads(mem, qid, item, 8)
            out["8 threads"] = counted(mem, item, before)
            qid, item, before = fresh_query()
            mem.retrieval.flush()
            start_at = time.time() + 8.0
            procs = [
                subprocess.Popen(
                    [sys.executable, "-m", "benchmarks.feedback_replay", "--worker", qid, item, "4", str(start_at)]
                )
                for _ in range(2)
            ]
            for p in procs:
                p.wait(timeout=600)
            out["2 processes x 4 threads"] = counted(mem, item, before)

            qid, item, before = fresh_query(session="late")
            mem.end_session("late")
            mem.retrieval.feedback(qid, [item], "success")
            out["late feedback, counted globally at once"] = counted(mem, item, before)
            records, _, _ = mem.driver.execute_query("MATCH (o:KgmemOverlay {ns: $ns}) RETURN count(o) AS n", ns=ns)
            out["late feedback, overlays left"] = records[0]["n"]

            first, repeat = [], []
            for _ in range(reps):
                qid, item, _ = fresh_query()
                t0 = time.perf_counter()
                mem.retrieval.feedback(qid, [item], "success")
                t1 = time.perf_counter()
                mem.retrieval.feedback(qid, [item], "success")
                t2 = time.perf_counter()
                first.append((t1 - t0) * 1000)
                repeat.append((t2 - t1) * 1000)
            out["feedback ms (median, first)"] = round(statistics.median(first), 1)
            out["feedback ms (median, repeat)"] = round(statistics.median(repeat), 1)
        finally:
            delete_namespace(mem.graph, None, ns)
    return out


def run(settings: Any = None, quick: bool = False) -> dict[str, Any]:
    """How often concurrent and repeated feedback is counted (``sequential x1`` … ``2 processes x 4 threads``:
    the top hit's global count rises by exactly one per query) and feedback latency. Runs in a namespace of
    its own on the environment's Neo4j (worker processes read the same settings). Quick: 5 timed queries."""
    out = replay(5 if quick else 20)
    out.pop("ns", None)
    return out


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker(sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5]))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=20, help="queries timed for the latency figures")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures to this file")
    args = parser.parse_args()
    out = replay(args.reps)
    for key, value in out.items():
        print(f"{key:<42} {value}")
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()

#!/usr/bin/env python
"""How long kgmem's calls block when Neo4j is dead (nothing listens on the Bolt port: the
connection is refused, as after `kill -9`). Prints the wall time of the first call of each kind
and the median of the next ones (inside the offline window), for docs/reliability.md.

Usage: benchmarks/failure_modes.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import logging
import statistics
import tempfile
import time
from pathlib import Path

from kgmem import KGMem
from kgmem.config import load_settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    logging.disable(logging.WARNING)  # every call logs its spooling; the timings are the output
    tmp = Path(tempfile.mkdtemp(prefix="kgmem-bench-fail-"))
    settings = load_settings(
        home=tmp,
        namespace="bench-dead",
        neo4j={"uri": "bolt://127.0.0.1:9", "password": "unused"},
        chroma={"path": str(tmp / "chroma")},
    )
    mem = KGMem(settings)
    mem.embedder.embed_query("warm up the model")  # the model load is not the backend's wait
    calls = {
        "tool_result": lambda i: mem.tool_result("psql", {"n": i}, error=f"connection refused {i}", session="s"),
        "turn": lambda i: mem.turn("s", "user", f"turn {i}", ref=f"r{i}"),
        "add_knowledge": lambda i: mem.add_knowledge(f"fact number {i} for the benchmark"),
        "search": lambda i: mem.search(f"connection refused {i}"),
    }
    print(
        "settings:",
        settings.neo4j.model_dump(
            include={
                "connection_timeout_s",
                "max_transaction_retry_time_s",
                "attempts",
                "deadline_s",
                "offline_retry_s",
            }
        ),
    )
    for name, call in calls.items():
        time.sleep(settings.neo4j.offline_retry_s + 0.1)  # each kind starts outside the offline window
        times = []
        for i in range(args.repeat + 1):
            t0 = time.perf_counter()
            call(i)
            times.append((time.perf_counter() - t0) * 1000)
        print(
            f"{name:14s} first call {times[0]:8.1f} ms   "
            f"next {args.repeat}: median {statistics.median(times[1:]):6.1f} ms"
        )
    mem.close()


if __name__ == "__main__":
    main()

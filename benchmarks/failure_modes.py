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


def measure(repeat: int) -> dict[str, float]:
    """``<call>.first_ms`` and ``<call>.next_median_ms`` with nothing listening on the Bolt port."""
    logging.disable(logging.WARNING)  # every call logs its spooling; the timings are the output
    tmp = Path(tempfile.mkdtemp(prefix="kgmem-bench-fail-"))
    settings = load_settings(
        home=tmp,
        namespace="bench-dead",
        neo4j={"uri": "bolt://127.0.0.1:9", "password": "unused"},
        chroma={"path": str(tmp / "chroma")},
    )
    out: dict[str, float] = {}
    mem = KGMem(settings)
    try:
        mem.embedder.embed_query("warm up the model")  # the model load is not the backend's wait
        calls = {
            "tool_result": lambda i: mem.tool_result("psql", {"n": i}, error=f"connection refused {i}", session="s"),
            "turn": lambda i: mem.turn(session="s", role="user", text=f"turn {i}", ref=f"r{i}"),
            "add_knowledge": lambda i: mem.add_knowledge(f"fact number {i} for the benchmark"),
            "search": lambda i: mem.search(f"connection refused {i}"),
        }
        for name, call in calls.items():
            time.sleep(settings.neo4j.offline_retry_s + 0.1)  # each kind starts outside the offline window
            times = []
            for i in range(repeat + 1):
                t0 = time.perf_counter()
                call(i)
                times.append((time.perf_counter() - t0) * 1000)
            out[f"{name}.first_ms"] = times[0]
            out[f"{name}.next_median_ms"] = statistics.median(times[1:])
    finally:
        mem.close()
        logging.disable(logging.NOTSET)
    return out


def run(settings: object = None, quick: bool = False) -> dict[str, float]:
    """How long each kind of call blocks when Neo4j is dead (its own settings: a port nothing listens on;
    ``settings`` is not used). Quick: 2 repeats; full: 5."""
    return measure(2 if quick else 5)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    for key, value in measure(args.repeat).items():
        print(f"{key:28s} {value:8.1f} ms")


if __name__ == "__main__":
    main()

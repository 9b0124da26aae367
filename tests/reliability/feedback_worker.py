"""A second process that judges one query from several threads at once (tests/reliability/
test_feedback_once.py, benchmarks/feedback_replay.py).

    python feedback_worker.py QUERY_ID USED_ID OUTCOME THREADS START_AT

Connects to the Neo4j of the current settings (only the graph: feedback needs nothing else), waits
until the wall clock reaches START_AT (epoch seconds, shared with the other process so the calls
race), fires THREADS feedback calls at once and prints one JSON line: the ``counted`` flag of each.
"""

from __future__ import annotations

import json
import sys
import threading
import time

from kgmem.config import load_settings
from kgmem.graph import GraphStore, connect
from kgmem.retrieval import Retrieval


def main(query_id: str, used: str, outcome: str, threads: int, start_at: float) -> None:
    settings = load_settings()
    with connect(settings) as driver:
        retrieval = Retrieval(GraphStore(driver, settings.neo4j.database), None, None)  # type: ignore[arg-type]
        counted: list[bool] = []
        errors: list[str] = []
        barrier = threading.Barrier(threads)

        def judge() -> None:
            barrier.wait()
            try:
                counted.append(retrieval.feedback(query_id, [used], outcome).counted)
            except Exception as exc:  # noqa: BLE001 - reported to the parent test
                errors.append(f"{type(exc).__name__}: {exc}")

        workers = [threading.Thread(target=judge) for _ in range(threads)]
        time.sleep(max(0.0, start_at - time.time()))
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        retrieval.close()
    print(json.dumps({"counted": counted, "errors": errors}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5]))

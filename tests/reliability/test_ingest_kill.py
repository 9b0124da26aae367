"""kill -9 of Neo4j in the middle of `kgmem ingest`, restart, re-run: every count equals a
fault-free control (defect 2 of issue 10: the interrupted batch used to be spooled AND left
unmarked, so the re-run and the replay both applied it — 1,404 vs 1,200)."""

from __future__ import annotations

import threading
import time

import pytest

from kgmem import KGMem
from kgmem.errors import IngestInterrupted
from kgmem.graph import GraphStore, connect
from kgmem.graph.schema import apply_schema

from ingest_data import graph_counts, mixed_events, write_jsonl  # type: ignore[import-not-found]

BOLT, HTTP = 19687, 19474  # this suite's private server (never the shared one)
N_TOOLS = 600


def _marks(driver, ns: str) -> int:
    try:
        records, _, _ = driver.execute_query("MATCH (i:IngestedEvent {ns: $ns}) RETURN count(i) AS n", ns=ns)
    except Exception:  # noqa: BLE001 - the server is being killed
        return -1
    return records[0]["n"]


@pytest.mark.slow
def test_kill9_during_ingest_then_rerun_equals_control(private_neo4j, embedder, tmp_path) -> None:
    t0 = time.monotonic()
    lap = lambda what: print(f'{time.monotonic() - t0:6.1f}s {what}', flush=True)  # noqa: E731
    private = private_neo4j(BOLT, HTTP, learning={"offline_retry_s": 0.5})
    settings = private.settings
    lap('server up')
    path = write_jsonl(tmp_path / "events.jsonl", mixed_events(N_TOOLS, n_knowledge=20))
    drv = connect(settings)
    try:
        apply_schema(GraphStore(drv))
        mem = KGMem(settings, driver=drv, embedder=embedder)
        control = mem.ingest(path, ns="control", batch_size=50)
        assert control.ok and control.tool_results == N_TOOLS
        lap('control ingested')

        outcome: dict[str, object] = {}

        def run() -> None:
            try:
                outcome["report"] = mem.ingest(path, ns="faulty", batch_size=50)
            except Exception as exc:  # noqa: BLE001 - inspected below
                outcome["error"] = exc

        worker = threading.Thread(target=run)
        worker.start()
        deadline = time.monotonic() + 120
        while _marks(drv, "faulty") < 150 and worker.is_alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert worker.is_alive(), "the ingest finished before the kill: make the input bigger"
        private.kill9()  # mid-stream: a batch is in flight (the ingest writes continuously)
        worker.join(timeout=180)
        assert not worker.is_alive()
        assert isinstance(outcome.get("error"), IngestInterrupted), outcome
        lap('killed, ingest stopped')

        private.up()
        lap('restarted')
        again = mem.ingest(path, ns="faulty", batch_size=50)
        lap('re-run done')
        assert again.ok and 0 < again.already_ingested < N_TOOLS + 20

        faulty, expected = graph_counts(drv, "faulty"), graph_counts(drv, "control")
        assert faulty == expected  # lost = 0, double-counted = 0, for every count
        assert expected["occurrences"] == 540 and expected["in_session_count"] == 540  # 9 of 10 lines are errors
        # A third run adds nothing.
        third = mem.ingest(path, ns="faulty", batch_size=50)
        assert third.tool_results == 0 and graph_counts(drv, "faulty") == expected
        mem.close()
    finally:
        drv.close()

"""kill -9 of Neo4j in the middle of `kgmem ingest`, restart, re-run: every count equals a
fault-free control (defect 2: the interrupted batch used to be spooled AND left
unmarked, so the re-run and the replay both applied it — 1,404 vs 1,200)."""

from __future__ import annotations

import stat
import threading
import time
from pathlib import Path

from ingest_data import graph_counts, mixed_events, write_jsonl  # type: ignore[import-not-found]

from kgmem import KGMem
from kgmem.errors import IngestInterrupted
from kgmem.graph import GraphStore, connect
from kgmem.graph.schema import apply_schema

N_TOOLS = 200  # 273 lines, 6 batches of 50: the kill lands after the second, four are still to come


def _marks(driver, ns: str) -> int:
    try:
        records, _, _ = driver.execute_query("MATCH (i:IngestedEvent {ns: $ns}) RETURN count(i) AS n", ns=ns)
    except Exception:  # noqa: BLE001 - the server is being killed
        return -1
    return records[0]["n"]


def _assert_private(private) -> None:  # type: ignore[no-untyped-def]
    """The server's environment holds no client secret (checked on the JVM this test restarts, under its
    environment); its data dirs are 0700."""
    pid = private.server.status().pid
    environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    names = {item.split(b"=", 1)[0] for item in environ if item}
    assert b"ANTHROPIC_API_KEY" not in names and b"KGMEM_NEO4J__PASSWORD" not in names
    assert not any(b"must-not-leak" in item for item in environ)
    home = private.server_settings.home
    for path in (home, home / "neo4j", home / "neo4j" / "data", home / "neo4j" / "logs", home / "neo4j" / "conf"):
        assert stat.S_IMODE(path.stat().st_mode) == 0o700, path


def test_kill9_during_ingest_then_rerun_equals_control(private_neo4j, embedder, tmp_path, monkeypatch) -> None:
    # Secrets in the client's environment must not reach the Neo4j JVM (defect 11).
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-must-not-leak")
    monkeypatch.setenv("KGMEM_NEO4J__PASSWORD", "must-not-leak")
    private = private_neo4j("ingest_kill", learning={"offline_retry_s": 0.5})  # never the shared test server
    # The client itself analyses offline: the planted key reaches no API, and every knowledge batch would
    # wait out the LLM's retries before the offline judge decides.
    settings = private.settings.model_copy(
        update={"anthropic": private.settings.anthropic.model_copy(update={"api_key": None})}
    )
    _assert_private(private)
    path = write_jsonl(tmp_path / "events.jsonl", mixed_events(N_TOOLS, n_knowledge=20))
    drv = connect(settings)
    try:
        apply_schema(GraphStore(drv))
        mem = KGMem(settings, driver=drv, embedder=embedder)
        control = mem.ingest(path, ns="control", batch_size=50)
        assert control.ok and control.tool_results == N_TOOLS

        outcome: dict[str, object] = {}

        def run() -> None:
            try:
                outcome["report"] = mem.ingest(path, ns="faulty", batch_size=50)
            except Exception as exc:  # noqa: BLE001 - inspected below
                outcome["error"] = exc

        worker = threading.Thread(target=run)
        worker.start()
        deadline = time.monotonic() + 120
        while _marks(drv, "faulty") < 100 and worker.is_alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert worker.is_alive(), "the ingest finished before the kill: make the input bigger"
        private.kill9()  # mid-stream: a batch is in flight (the ingest writes continuously)
        worker.join(timeout=180)
        assert not worker.is_alive()
        assert isinstance(outcome.get("error"), IngestInterrupted), outcome

        private.up()
        _assert_private(private)
        again = mem.ingest(path, ns="faulty", batch_size=50)
        assert again.ok and 0 < again.already_ingested < N_TOOLS + 20

        faulty, expected = graph_counts(drv, "faulty"), graph_counts(drv, "control")
        assert faulty == expected  # lost = 0, double-counted = 0, for every count
        assert expected["occurrences"] == 180 and expected["in_session_count"] == 180  # 9 of 10 lines are errors
        # A third run adds nothing.
        third = mem.ingest(path, ns="faulty", batch_size=50)
        assert third.tool_results == 0 and graph_counts(drv, "faulty") == expected
        mem.close()
    finally:
        drv.close()

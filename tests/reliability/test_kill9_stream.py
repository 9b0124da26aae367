"""Neo4j is killed with SIGKILL in the middle of a stream of tool results, turns and manual
knowledge, restarted, and the stream goes on: afterwards the namespace holds exactly what a
fault-free run of the same stream holds (nothing lost, nothing counted twice)."""

from __future__ import annotations

import threading
from pathlib import Path

from reliability_support import fingerprint, run_call, workload  # type: ignore[import-not-found]

from kgmem import KGMem
from kgmem.config import Settings
from kgmem.graph import connect
from kgmem.spool import Spool

EVENTS = 31  # 65 calls, four sessions; a manual fact before the kill, in the outage and after the restart
KILL_AFTER = 18  # calls acknowledged before the kill; the kill lands while the next ones run
RESTART_AFTER = 45  # calls made (spooled) while the server is dead


def _quiet(settings: Settings, home: Path) -> Settings:
    """No background analysis (its windows would depend on timing), own home (own spool) and Chroma."""
    return settings.model_copy(
        update={
            "home": home,
            "analysis": settings.analysis.model_copy(update={"enabled": False}),
            "chroma": settings.chroma.model_copy(update={"path": home / "chroma"}),
        }
    )


def test_kill9_during_a_stream_then_replay_equals_fault_free_control(
    stream_neo4j, private_ns: str, settings: Settings, ns: str, driver, embedder, tmp_path: Path
) -> None:
    calls = workload(EVENTS)

    # Fault-free control: the same stream on the shared server.
    with KGMem(_quiet(settings, tmp_path / "control"), driver=driver, embedder=embedder) as control_mem:
        for call in calls:
            run_call(control_mem, call)
    control = fingerprint(driver, ns)

    settings = _quiet(stream_neo4j.settings.model_copy(update={"namespace": private_ns}), tmp_path / "fault")
    drv = connect(settings)
    faulted = KGMem(settings, driver=drv, embedder=embedder)
    done = 0
    killed = threading.Event()

    def killer() -> None:
        while done < KILL_AFTER:
            threading.Event().wait(0.005)
        stream_neo4j.kill9()  # the stream is running meanwhile: a write is in flight or about to be
        killed.set()

    thread = threading.Thread(target=killer)
    thread.start()
    spooled = 0
    try:
        for i, call in enumerate(calls):
            if i == RESTART_AFTER:
                thread.join()
                stream_neo4j.up()
            out = run_call(faulted, call)
            spooled += bool(getattr(out, "spooled", False) or (isinstance(out, dict) and out.get("spooled")))
            done = i + 1
        thread.join()
        assert killed.is_set()
        faulted.replay_spool()  # whatever the automatic replay on the next write left over
        stats = Spool(settings.spool_dir).stats()
        got = fingerprint(drv, private_ns)
    finally:
        faulted.close()
        drv.close()
        if not stream_neo4j.server.status().running:
            stream_neo4j.up()

    print(f"kill -9 stream: {len(calls)} calls, {spooled} tool results/facts answered from the spool, spool {stats}")
    assert spooled > 0, "the kill never hit the stream: nothing was spooled"
    assert stats["pending"] == 0 and stats["dropped"] == 0
    assert stats["replayed"] == stats["spooled"] > 0
    for part in control:
        assert got[part] == control[part], part

"""Deferred repeats on the real stack: a repeat of a known error is answered from one read and
fsync'ed to the deferred spool segment; its occurrence reaches the graph exactly once — at a flush,
by the timer, before the client's next write, or (after a crash) through the spool's replay. Neo4j
stopped with repeats deferred: tests/integration/learning/test_spool.py (one outage with its stream)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from kgmem import KGMem
from kgmem.config import Settings
from kgmem.graph import GraphStore
from kgmem.maintenance import delete_namespace
from kgmem.spool import DEFERRED_PREFIX, Spool

ROOT = Path(__file__).resolve().parents[3]
TIMEOUT = "ReadTimeoutError: HTTPSConnectionPool(host='api.example.com', port=443): Read timed out. (read timeout={t})"
REFUSED = "Error: connect ECONNREFUSED 10.0.0.{n}:5432"


def _defer(settings: Settings, home: Path | None = None, flush_ms: int = 60_000) -> Settings:
    """``settings`` with a long deferral window (only explicit flushes and writes flush), own home/spool."""
    update: dict = {"learning": settings.learning.model_copy(update={"defer_flush_ms": flush_ms})}
    if home is not None:
        update["home"] = home
    return settings.model_copy(update=update)


def _occurrences(driver, ns: str) -> dict[str, int]:
    records, _, _ = driver.execute_query(
        "MATCH (e:ErrorPattern {ns: $ns}) RETURN e.pattern AS p, e.occurrences AS n", ns=ns
    )
    return {r["p"]: r["n"] for r in records}


def _sessions(driver, ns: str) -> list[tuple[str, int, bool]]:
    records, _, _ = driver.execute_query(
        "MATCH (:ErrorPattern {ns: $ns})-[r:IN_SESSION]->(s:Session {ns: $ns}) RETURN s.key AS s, r.count AS n, "
        "r.open AS open ORDER BY s",
        ns=ns,
    )
    return [(r["s"], r["n"], r["open"]) for r in records]


def _deferred_lines(spool_dir: Path) -> int:
    return sum(len(p.read_text().splitlines()) for p in spool_dir.glob(f"{DEFERRED_PREFIX}*.jsonl"))


def test_a_repeat_is_durable_on_return_and_counted_once_after_the_flush(
    settings: Settings, driver, embedder, ns: str, tmp_path: Path
) -> None:
    with KGMem(_defer(settings, tmp_path / "home"), driver=driver, embedder=embedder) as mem:
        first = mem.tool_result("http", {"timeout": 5}, error=TIMEOUT.format(t=5), session="s1")
        assert first.is_new and first.occurrences == 1
        assert mem.resolve(first, "raise the timeout to 30 s").successes == 1  # a fix known before the repeat
        before = mem.learning.deferred_total
        repeats = [mem.tool_result("http", {"timeout": 5}, error=TIMEOUT.format(t=n), session="s1") for n in (6, 7)]
        assert mem.learning.deferred_total == before + 2  # both took the deferred path
        assert [o.occurrences for o in repeats] == [2, 3] and not any(o.is_new or o.spooled for o in repeats)
        assert all(o.fixes and o.fixes[0].description == "raise the timeout to 30 s" for o in repeats)
        # On return: in the spool file (fsync'ed), not yet in the graph.
        assert _deferred_lines(mem.settings.spool_dir) == 2
        assert _occurrences(driver, ns) == {first.pattern: 1}
        mem.flush()
        assert _occurrences(driver, ns) == {first.pattern: 3}
        assert _sessions(driver, ns) == [("s1", 3, True)]
        assert _deferred_lines(mem.settings.spool_dir) == 0  # applied: the segment was deleted
        mem.flush()
        assert mem.replay_spool() == 0 and _occurrences(driver, ns) == {first.pattern: 3}  # exactly once
        # a deferred repeat is an occurrence of its own: a fix reported on it counts, once
        assert len({first.occurrence, *(o.occurrence for o in repeats)}) == 3 and repeats[0].occurrence
        outs = [mem.fix_applied(repeats[0], "raise the timeout to 30 s", success=True) for _ in range(2)]
        assert [(o.successes, o.counted) for o in outs] == [(2, True), (2, False)]
    assert Spool(tmp_path / "home" / "spool").stats() == {
        "pending": 0,
        "spooled": 0,
        "replayed": 0,
        "dropped": 0,
        "quarantined": 0,
    }


def test_the_timer_writes_deferred_repeats(settings: Settings, driver, embedder, ns: str, tmp_path: Path) -> None:
    with KGMem(_defer(settings, tmp_path / "home", flush_ms=100), driver=driver, embedder=embedder) as mem:
        obs = mem.tool_result("psql", error=REFUSED.format(n=1))
        for n in range(2, 6):
            mem.tool_result("psql", error=REFUSED.format(n=n))
        assert mem.learning.deferred_total == 4
        deadline = time.monotonic() + 30  # a wait, not a timing assertion: the flusher runs in ~100 ms
        while _occurrences(driver, ns) != {obs.pattern: 5} and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _occurrences(driver, ns) == {obs.pattern: 5}
        assert mem.learning.flush() == 0  # nothing left to write
    assert _occurrences(driver, ns) == {obs.pattern: 5}


def test_a_success_after_a_deferred_failure_records_the_observed_fix(
    settings: Settings, driver, embedder, ns: str, tmp_path: Path
) -> None:
    with KGMem(_defer(settings, tmp_path / "home"), driver=driver, embedder=embedder) as mem:
        mem.tool_result("http", {"timeout": 5}, error=TIMEOUT.format(t=5), session="s")
        before = mem.learning.deferred_total
        mem.tool_result("http", {"timeout": 7}, error=TIMEOUT.format(t=7), session="s")
        assert mem.learning.deferred_total == before + 1
        ok = mem.tool_result("http", {"timeout": 30}, session="s")  # flushes the deferred failure first
        assert ok.ok and ok.fix_id is not None
        records, _, _ = driver.execute_query(
            "MATCH (:ErrorPattern {ns: $ns})-[r:RESOLVED_BY]->(f:Fix) RETURN f.description AS d, r.successes AS s",
            ns=ns,
        )
        # the newest failure's parameters (those of the deferred one) are what the success changed
        assert [(r["d"], r["s"]) for r in records] == [("http: set timeout=30 (was 7)", 1)]
        assert _sessions(driver, ns) == [("s", 2, False)]


CHILD = r"""
import os, sys
from pathlib import Path
from kgmem import KGMem
from kgmem.config import load_settings
home, ns, n = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
base = load_settings()
settings = base.model_copy(update={"home": home, "namespace": ns,
    "chroma": base.chroma.model_copy(update={"path": home / "chroma"}),
    "analysis": base.analysis.model_copy(update={"enabled": False}),
    "learning": base.learning.model_copy(update={"defer_flush_ms": 60000})})
mem = KGMem(settings)
for i in range(n):
    mem.tool_result("http", {"timeout": 5}, error=f"ReadTimeoutError: Read timed out. (read timeout={i})", session=f"s{i // 4}")
print(mem.learning.deferred_total, flush=True)
os.kill(os.getpid(), 9)  # kill -9 with the repeats deferred: no flush, no close
"""


def test_killed_with_repeats_deferred_then_replayed_once(
    settings: Settings, driver, embedder, ns: str, tmp_path: Path, graph: GraphStore
) -> None:
    n = 12
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    home = tmp_path / "child"
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(home), ns, str(n)], capture_output=True, text=True, env=env, timeout=600
    )
    assert proc.returncode == -9, proc.stderr[-2000:]
    deferred = int(proc.stdout.split()[-1])
    assert deferred == n - 1  # every repeat after the first occurrence was deferred
    assert sum(_occurrences(driver, ns).values()) == 1  # only the first occurrence was written
    assert _deferred_lines(home / "spool") == deferred

    control_ns = f"{ns}-control"
    try:
        off = settings.learning.model_copy(update={"defer_flush_ms": 0})
        with KGMem(
            settings.model_copy(update={"learning": off, "namespace": control_ns, "home": tmp_path / "c"}),
            driver=driver,
            embedder=embedder,
        ) as control:
            for i in range(n):
                control.tool_result(
                    "http",
                    {"timeout": 5},
                    error=f"ReadTimeoutError: Read timed out. (read timeout={i})",
                    session=f"s{i // 4}",
                )
        with KGMem(settings.model_copy(update={"home": home}), driver=driver, embedder=embedder) as mem:
            assert mem.replay_spool() == deferred
            assert mem.replay_spool() == 0
        assert list(_occurrences(driver, ns).values()) == list(_occurrences(driver, control_ns).values()) == [n]
        assert _sessions(driver, ns) == _sessions(driver, control_ns)
        stats = Spool(home / "spool").stats()
        assert stats["pending"] == 0 and stats["spooled"] == stats["replayed"] == deferred
    finally:
        delete_namespace(graph, None, control_ns)

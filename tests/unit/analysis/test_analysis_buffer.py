"""AnalysisBuffer: triggers, worker thread, bounded queue and drops."""

import threading

import pytest

from kgmem.analysis.buffer import AnalysisBuffer, Job, estimate_tokens
from kgmem.analysis.events import AnalysisStats
from kgmem.config import AnalysisSettings


class Recorder:
    def __init__(self, block: threading.Event | None = None):
        self.jobs: list[Job] = []
        self.threads: set[str] = set()
        self.block = block

    def __call__(self, job: Job) -> None:
        if self.block is not None:
            self.block.wait(5)
        self.threads.add(threading.current_thread().name)
        self.jobs.append(job)


def make(**overrides):
    stats = AnalysisStats()
    rec = Recorder(overrides.pop("block", None))
    return AnalysisBuffer(rec, AnalysisSettings(**overrides), stats), rec, stats


def test_turn_threshold_triggers_every_fifth_turn_per_session():
    buf, rec, _ = make()
    queued = [buf.add("ns", "s1", "user", f"turn {i}") for i in range(12)]
    assert queued == [False] * 4 + [True] + [False] * 4 + [True] + [False] * 2
    assert not buf.add("ns", "s2", "user", "other session")  # counters are per session
    assert buf.wait_idle(5)
    assert [len(j.messages) for j in rec.jobs] == [5, 5]
    assert rec.jobs[0].messages[0] == {"role": "user", "text": "turn 0"}
    assert buf.pending() == {"queued": 0, "sessions_pending": 2, "turns_pending": 3}
    assert rec.threads == {"kgmem-analysis"} and threading.current_thread().name not in rec.threads
    buf.close()


def test_token_threshold_triggers_before_five_turns():
    buf, rec, _ = make(token_threshold=100)
    assert not buf.add("ns", "s", "user", "x" * 200)  # 50 tokens
    assert buf.add("ns", "s", "user", "y" * 200)  # 100 tokens
    buf.wait_idle(5)
    assert len(rec.jobs) == 1 and len(rec.jobs[0].messages) == 2
    buf.close()


def test_estimate_tokens():
    assert estimate_tokens("") == 0 and estimate_tokens("a") == 1 and estimate_tokens("a" * 8000) == 2000


def test_full_queue_drops_are_counted_and_logged(caplog):
    gate, entered = threading.Event(), threading.Event()
    stats = AnalysisStats()
    handled = []

    def handler(job):
        entered.set()
        gate.wait(5)
        handled.append(job)

    buf = AnalysisBuffer(handler, AnalysisSettings(turn_threshold=1, queue_size=2), stats)
    with caplog.at_level("WARNING", logger="kgmem.analysis.events"):
        assert buf.add("ns", "s", "user", "t0")
        assert entered.wait(5)  # the worker holds job 0; the queue (size 2) is empty
        results = [buf.add("ns", "s", "user", f"t{i}") for i in range(1, 6)]
    assert results == [True, True, False, False, False]
    assert stats.snapshot("ns")["dropped"] == 3
    assert sum("knowledge.dropped" in r.getMessage() for r in caplog.records) == 3
    gate.set()
    buf.close()
    assert [j.messages[0]["text"] for j in handled] == ["t0", "t1", "t2"]


def test_flush_and_close_run_partial_windows():
    buf, rec, _ = make()
    buf.add("ns", "a", "user", "one")
    buf.add("ns", "b", "user", "two")
    assert buf.flush("ns", "a") and not buf.flush("ns", "a")
    assert buf.close(5)
    assert sorted(j.session for j in rec.jobs) == ["a", "b"]
    buf2, _, stats2 = make(turn_threshold=1)
    buf2.close()
    assert not buf2.add("ns", "x", "user", "late")
    assert stats2.snapshot("ns")["dropped"] == 1


def test_handler_exception_does_not_kill_worker():
    stats = AnalysisStats()
    seen = []

    def handler(job):
        seen.append(job.session)
        if job.session == "bad":
            raise RuntimeError("boom")

    buf = AnalysisBuffer(handler, AnalysisSettings(turn_threshold=1), stats)
    buf.add("ns", "bad", "user", "x")
    buf.add("ns", "good", "user", "y")
    assert buf.wait_idle(5)
    assert seen == ["bad", "good"] and stats.snapshot("ns")["analysis_failed"] == 1
    buf.close()


@pytest.mark.parametrize("threshold", [1, 3])
def test_thresholds_configurable(threshold):
    buf, rec, _ = make(turn_threshold=threshold)
    for i in range(threshold):
        buf.add("ns", "s", "user", str(i))
    buf.wait_idle(5)
    assert len(rec.jobs) == 1
    buf.close()


# -- the asyncio buffer (AsyncKGMem): the same windows, a task instead of the thread ---------------------
def test_async_buffer_windows_drops_failures_and_close():
    import asyncio

    from kgmem.analysis.buffer import AsyncAnalysisBuffer

    stats = AnalysisStats()
    handled: list[str] = []

    async def main() -> None:
        gate, entered = asyncio.Event(), asyncio.Event()

        async def handler(job: Job) -> None:
            entered.set()
            await gate.wait()
            if job.messages[0]["text"] == "bad":
                raise RuntimeError("boom")
            handled.append(job.messages[0]["text"])

        buf = AsyncAnalysisBuffer(handler, AnalysisSettings(turn_threshold=1, queue_size=2), stats)
        assert buf.add("ns", "s", "user", "bad")
        await asyncio.wait_for(entered.wait(), 5)  # the task holds job 0; the queue (size 2) is empty
        results = [buf.add("ns", "s", "user", f"t{i}") for i in range(1, 5)]
        assert results == [True, True, False, False]
        assert buf.pending() == {"queued": 2, "sessions_pending": 0, "turns_pending": 0}
        assert not await buf.wait_idle(0.05)  # the gate is shut: not idle
        gate.set()
        assert await buf.wait_idle(5)
        # partial windows are analysed at close; a closed buffer drops
        windowed = AsyncAnalysisBuffer(handler, AnalysisSettings(), stats)
        assert not windowed.add("ns", "w", "user", "partial")
        assert await windowed.close(5)
        assert not windowed.submit(Job("window", "ns", "w", [{"role": "user", "text": "late"}]))
        assert await buf.close(5)

    asyncio.run(main())
    assert handled == ["t1", "t2", "partial"]
    snap = stats.snapshot("ns")
    assert snap["dropped"] == 3 and snap["analysis_failed"] == 1

"""The opt-in stage clock: stages add up per name, and a scope without a clock times nothing."""

from time import perf_counter_ns

from kgmem.retrieval.scope import Scope
from kgmem.retrieval.timing import STAGES, StageClock, lap, start


def test_clock_adds_per_stage_in_ms() -> None:
    clock = StageClock()
    t0 = perf_counter_ns()
    clock.add("fusion", t0)
    clock.add("fusion", t0)
    clock.add("expand", perf_counter_ns())
    ms = clock.ms()
    assert set(ms) == {"fusion_ms", "expand_ms"}
    assert ms["fusion_ms"] >= 0 and ms["expand_ms"] >= 0


def test_scope_without_clock_records_nothing() -> None:
    scope = Scope.build("ns")
    assert scope.clock is None and start(scope) == 0
    lap(scope, "vector", 0)  # no clock: a no-op, not an error


def test_scope_with_clock_records_the_lap() -> None:
    clock = StageClock()
    scope = Scope.build("ns", clock=clock)
    lap(scope, "vector", start(scope))
    assert list(clock.ms()) == ["vector_ms"]
    assert scope == Scope.build("ns")  # the clock is not part of what a search may see


def test_every_stage_is_documented_for_users() -> None:
    from pathlib import Path

    docs = (Path(__file__).resolve().parents[3] / "docs" / "retrieval.md").read_text(encoding="utf-8")
    section = docs[docs.index("### Latency by stage") :]
    assert all(f"`{stage}`" in section for stage in STAGES)

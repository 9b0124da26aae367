"""Call-graph self-healing on the real graph: confirm, discover, decay (seed 003 §2.6)."""

from __future__ import annotations

import pytest

from kgmem.callgraph import CallGraph, HealResult, confirm
from kgmem.errors import ValidationError
from kgmem.maintenance import run_decay


def edges(graph, ns):  # type: ignore[no-untyped-def]
    rows = graph.read("reports/callgraph_edges", ns=ns, source="*", max_confidence=1.0, limit=100)
    return {(r["caller"], r["callee"]): (r["source"], r["confidence"], r["times_confirmed"]) for r in rows}


def new_sessions(mem, ns, n, start=0):  # type: ignore[no-untyped-def]
    for i in range(start, start + n):
        mem.turns.end_session(ns, f"later-{i}")


def test_observations_confirm_discover_and_decay(mem, ns) -> None:
    cg = CallGraph(mem.graph)
    assert cg.add_calls(ns, [("pkg.a", "pkg.b")]) == 1
    assert cg.add_functions(ns, ["pkg.c", "pkg.d"]) == 2

    assert cg.observe(ns, ["pkg.c", "pkg.d", "pkg.nope"], session="s") == HealResult(0, 1, 2)
    assert cg.observe(ns, ["pkg.a", "pkg.b"]) == HealResult(1, 0, 0)
    assert cg.observe(ns, ["pkg.d", "pkg.c"]) == HealResult(1, 0, 0)  # either direction confirms
    got = edges(mem.graph, ns)
    assert got[("pkg.a", "pkg.b")] == ("ast", 1.0, 1)  # AST edges keep 1.0
    source, confidence, times = got[("pkg.c", "pkg.d")]
    assert (source, times) == ("observation", 1) and confidence == pytest.approx(confirm(0.6), abs=1e-3)
    assert ("pkg.d", "pkg.c") not in got

    # stale decay: nothing until 10 sessions passed without a confirmation
    new_sessions(mem, ns, 9)
    assert cg.decay(ns) == 0
    new_sessions(mem, ns, 1, start=9)
    assert cg.decay(ns) == 1
    assert cg.decay(ns) == 0  # idempotent
    c = round(confirm(0.6), 6)
    assert edges(mem.graph, ns)[("pkg.c", "pkg.d")][1] == pytest.approx(c - 0.05, abs=1e-3)
    new_sessions(mem, ns, 2, start=10)
    assert run_decay(mem.graph, ns).callgraph_decayed == 1  # the batch job includes it
    assert edges(mem.graph, ns)[("pkg.c", "pkg.d")][1] == pytest.approx(c - 0.15, abs=1e-3)
    assert edges(mem.graph, ns)[("pkg.a", "pkg.b")][1] == 1.0  # AST untouched

    # a confirmation resets staleness
    cg.observe(ns, ["pkg.c", "pkg.d"])
    assert cg.decay(ns) == 0


def test_observation_input_is_validated(mem, ns) -> None:
    cg = CallGraph(mem.graph)
    with pytest.raises(ValidationError, match="functions_changed"):
        cg.observe(ns, "pkg.a")  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match=r"functions_changed\[1\]"):
        cg.observe(ns, ["pkg.a", ""])
    with pytest.raises(ValidationError, match=r"calls\[0\]"):
        cg.add_calls(ns, [("only-one",)])  # type: ignore[list-item]
    assert cg.observe(ns, ["pkg.a"]) == HealResult(0, 0, 0)

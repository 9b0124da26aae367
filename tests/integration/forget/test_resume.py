"""An interrupted forget is finished: killed between its tombstones and its erase, by the next forget
call; killed between the stores (nodes erased and vectors left, or the reverse), by the drift repair
(``reindex``), which counts what it removed and never embeds a forgotten node again. Nothing of the
scope is left, node or vector, and its audit entry is done."""

from __future__ import annotations

import pytest

import kgmem.forget.erase as erase
import kgmem.forget.service as service
from kgmem import KGMem
from kgmem.kinds import MESSAGE
from kgmem.maintenance.reindex import reindex

from .conftest import canary, scan


@pytest.fixture
def fmem(fsettings, driver, embedder, graph):
    client = KGMem(fsettings, driver=driver, embedder=embedder)
    yield client
    client.close()


def test_the_next_forget_resumes_an_interrupted_one(fmem, ns, monkeypatch):
    for session in ("s1", "s2"):
        for i in range(3):
            fmem.turn(session=session, role="user", text=f"{session} says thing {i}", ref=str(i))
    fmem.flush()
    s1 = [m["id"] for m in fmem.turns.messages(ns, "s1")]
    real = service.erase_op
    calls = {"n": 0}

    def dies_once(plan, batch, vector_batch):
        calls["n"] += 1
        if calls["n"] == 1:
            raise KeyboardInterrupt("killed mid-forget")
        return real(plan, batch, vector_batch)

    monkeypatch.setattr(service, "erase_op", dies_once)
    with pytest.raises(KeyboardInterrupt):
        fmem.forget(session="s1")
    assert [a["state"] for a in fmem.report("forgotten")] == ["running"]
    assert len(fmem.turns.messages(ns, "s1")) == 3  # tombstoned, not erased yet

    result = fmem.forget(session="s2")
    assert len(result.resumed) == 1
    assert fmem.turns.messages(ns, "s1") == [] and fmem.turns.messages(ns, "s2") == []
    assert fmem.vectors.get(ns, MESSAGE.name, s1) == {}
    assert [a["state"] for a in fmem.report("forgotten")] == ["done", "done"]


def _killed(*_args, **_kwargs):
    raise KeyboardInterrupt("killed between the stores")
    yield  # pragma: no cover - a generator, as the step it replaces


@pytest.mark.parametrize("left", ["vectors", "nodes"])
def test_the_drift_repair_finishes_a_forget_interrupted_between_the_stores(fmem, ns, driver, monkeypatch, left):
    secret = canary()
    for i in range(3):
        fmem.turn(session="s1", role="user", text=f"{secret} in turn {i}", ref=str(i))
        fmem.turn(session="s2", role="user", text=f"another thing {i}", ref=str(i))
    fmem.flush()
    s1 = [m["id"] for m in fmem.turns.messages(ns, "s1")]
    # "vectors": the graph batch commits, the Chroma deletes beside it die; "nodes": the reverse
    monkeypatch.setattr(erase, "_delete_vectors" if left == "vectors" else "_erase_batch", _killed)
    with pytest.raises(KeyboardInterrupt):
        fmem.forget(session="s1")
    monkeypatch.undo()
    nodes, vectors = len(fmem.turns.messages(ns, "s1")), len(fmem.vectors.get(ns, MESSAGE.name, s1))
    assert (nodes, vectors) == ((0, 3) if left == "vectors" else (3, 0))

    # without the client's forgetter (the Python call): stale vectors go, forgotten nodes are not embedded
    bare = reindex(fmem.graph, fmem.vectors, fmem.embedder, ns, missing_only=True)
    message = bare.kinds[MESSAGE.name]
    assert (message.removed, message.forgotten, message.repaired) == ((3, 0, 0) if left == "vectors" else (0, 3, 0))
    assert fmem.vectors.get(ns, MESSAGE.name, s1) == {}

    # with it (what `kgmem reindex` passes): the interrupted forget is finished
    summary = reindex(fmem.graph, fmem.vectors, fmem.embedder, ns, missing_only=True, forgetter=fmem.engines.forgetter)
    assert summary.forgets_finished == 1
    assert fmem.turns.messages(ns, "s1") == [] and len(fmem.turns.messages(ns, "s2")) == 3
    assert [a["state"] for a in fmem.report("forgotten")] == ["done"]
    after = scan(fmem, driver, ns, [secret])
    assert after == dict.fromkeys(after, 0), after

"""An interrupted forget (the process killed between its tombstones and its erase) is finished by
the next forget call: nothing of the first scope is left, node or vector, and its audit entry is done."""

from __future__ import annotations

import pytest

import kgmem.forget.service as service
from kgmem import KGMem
from kgmem.kinds import MESSAGE


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

"""Forgetting a whole namespace erases it in bounded transactions: its ids are read a page at a time,
its items are erased ``[forget] batch_size`` per transaction (their vectors ``vector_batch_size`` per
Chroma delete), and so is the rest of the namespace — never one transaction holding all of it. The
tombstones and the audit entry are kept as for any forget."""

from __future__ import annotations

from collections import Counter

import pytest

from kgmem import KGMem
from kgmem.kinds import KINDS

BATCH = 3


@pytest.fixture
def small(fsettings):
    forget = fsettings.forget.model_copy(update={"batch_size": BATCH, "vector_batch_size": 2})
    return fsettings.model_copy(update={"forget": forget})


@pytest.fixture
def fmem(small, driver, embedder, graph):
    client = KGMem(small, driver=driver, embedder=embedder)
    yield client
    client.close()


def _spy(mem, monkeypatch) -> list[tuple[str, dict, list]]:
    """Every graph statement the client runs — one transaction each — with its parameters and rows."""
    calls: list[tuple[str, dict, list]] = []
    write, read = mem.graph.write, mem.graph.read

    def spied(real):
        def run(name, **params):
            rows = real(name, **params)
            calls.append((name, params, rows))
            return rows

        return run

    monkeypatch.setattr(mem.graph, "write", spied(write))
    monkeypatch.setattr(mem.graph, "read", spied(read))
    return calls


def _left(driver, ns: str) -> Counter:
    records, _, _ = driver.execute_query(
        "MATCH (n {ns: $ns}) RETURN head(labels(n)) AS label, count(*) AS n", parameters_={"ns": ns}
    )
    return Counter({r["label"]: r["n"] for r in records})


def test_forget_everything_runs_in_bounded_batches(fmem, ns, driver, monkeypatch):
    for s in range(3):
        for i in range(4):
            fmem.turn(session=f"s{s}", role="user", text=f"turn {i} of session {s} about the garden shed", ref=str(i))
        for tool in ("shed", "gate"):  # tools are not items: they go with the rest of the namespace
            fmem.tool_result(f"{tool}-{s}", {"try": s}, error=f"LockJammed: padlock {s} will not open", session=f"s{s}")
    fmem.add_knowledge("The garden shed key hangs by the back door")
    fmem.flush()
    before = _left(driver, ns)
    assert before["Message"] == 12 and before["Session"] == 3 and before["Tool"] == 6

    calls = _spy(fmem, monkeypatch)
    result = fmem.forget(everything=True)

    erase = [(p, rows) for name, p, rows in calls if name == "forget/erase_batch"]
    assert len(erase) >= 12 // BATCH + 3  # several batches for the turns alone, then the other items
    assert all(len(p["rows"]) <= BATCH for p, _ in erase)
    rest = [rows for name, p, rows in calls if name == "forget/erase_namespace_batch"]
    assert len(rest) >= 2 and all(sum(r["n"] for r in rows) <= BATCH for rows in rest)
    pages = [p for name, p, _ in calls if name == "forget/namespace_items" and p["label"] == "Message"]
    assert len(pages) >= 12 // BATCH and all(p["limit"] == BATCH for p in pages)
    tombstoned = [p for name, p, _ in calls if name == "forget/tombstone"]
    assert len(tombstoned) >= 2 and all(len(p["rows"]) <= BATCH for p in tombstoned)

    assert result.counts["graph"]["Message"] == 12 and result.counts["graph"]["Session"] == 3
    left = _left(driver, ns)
    assert set(left) == {"KgmemTombstone", "KgmemForget"}, left  # the forget's own, content-free tables
    items = sum(
        n
        for label, n in before.items()
        if label in ("Message", "Knowledge", "ErrorPattern", "Fix", "Entity", "Session")
    )
    assert left["KgmemTombstone"] >= items + 1  # every item, and the namespace
    for kind in KINDS:
        coll = fmem.vectors.collection(ns, kind.name, create=False)
        assert coll is None or coll.count() == 0, kind.name
    audit = fmem.graph.read("forget/audit_list", ns=ns, limit=10)
    assert [(a["scope"], a["state"]) for a in audit] == [("everything", "done")]

"""Write-behind of turns: order, batching, flush, failures — the thread writer and the asyncio one
store batches with the same operation (the turn store is a recording stand-in)."""

import asyncio
import threading
from collections import Counter

from kgmem.conversation import Turn
from kgmem.conversation.writer import AsyncTurnWriter, TurnWriter, store_batch_op
from kgmem.errors import GraphUnavailable
from kgmem.runner import AsyncIO, SyncIO, arun, run


def _counter() -> tuple[Counter, object]:
    counts: Counter = Counter()

    def count(ns, name, n=1):
        counts[(ns, name)] += n

    return counts, count


def _op(record):
    """``record(ns, turns)`` (a plain callable) as the record operation ``store_batch_op`` expects."""

    def record_op(ns, turns):
        record(ns, turns)
        return None
        yield  # pragma: no cover - an operation

    return record_op


def test_turns_are_stored_in_order_in_batches_then_observed():
    gate = threading.Event()
    batches, observed = [], []

    def record(ns, turns):
        gate.wait(5)
        batches.append((ns, [t.text for t in turns]))

    count = _counter()[1]
    writer = TurnWriter(
        lambda batch: run(
            store_batch_op(batch, _op(record), lambda ns, t: observed.append(t.text), count), SyncIO(None, None, None)
        ),
        batch_size=3,
    )
    for i in range(7):
        writer.submit("a" if i != 5 else "b", Turn("s", "user", f"t{i}"))
    gate.set()
    assert writer.flush(5)
    texts = [t for _, b in batches for t in b]
    assert sorted(texts) == sorted(f"t{i}" for i in range(7))
    assert [t for t in texts if t != "t5"] == [f"t{i}" for i in range(7) if i != 5]  # order kept per ns
    assert all(len(b) <= 3 for _, b in batches) and len(batches) < 7  # batched while the first write ran
    assert observed == texts  # analysis sees a turn only after it is stored
    assert writer.close(5)


def _failing(stored):
    def record(ns, turns):
        if turns[0].text == "bad":
            raise RuntimeError("neo4j down")
        if turns[0].text == "unreachable":
            raise GraphUnavailable("neo4j unreachable")
        stored.extend(t.text for t in turns)

    return record


def _spool_op(spooled):
    def spool_op(ns, turns, exc):
        spooled.extend(t.text for t in turns)
        return None
        yield  # pragma: no cover - an operation

    return spool_op


def test_failed_batch_is_counted_an_unreachable_one_spooled_and_the_writer_keeps_going():
    counts, count = _counter()
    stored, spooled = [], []
    writer = TurnWriter(
        lambda batch: run(
            store_batch_op(batch, _op(_failing(stored)), lambda ns, t: None, count, _spool_op(spooled)),
            SyncIO(None, None, None),
        ),
        batch_size=1,
    )
    for text in ("bad", "unreachable", "good"):
        writer.submit("ns", Turn("s", "user", text))
    assert writer.close(5)
    assert stored == ["good"] and spooled == ["unreachable"]
    assert counts == {("ns", "turns_failed"): 1, ("ns", "turns_written"): 1}


def test_the_asyncio_writer_batches_keeps_order_spools_and_counts_like_the_thread_one():
    counts, count = _counter()
    stored, spooled, observed = [], [], []
    sizes = []

    async def main() -> bool:
        io = AsyncIO(None, None, None)

        async def store(batch):
            sizes.append(len(batch))
            await arun(
                store_batch_op(
                    batch, _op(_failing(stored)), lambda ns, t: observed.append(t.text), count, _spool_op(spooled)
                ),
                io,
            )

        writer = AsyncTurnWriter(store, batch_size=3)
        for text in ("t0", "t1", "t2", "bad", "t4", "t5", "unreachable", "t7"):
            await writer.submit("ns", Turn("s", "user", text))
        assert await writer.flush(5)
        return await writer.close(5)

    assert asyncio.run(main())
    assert sizes == [3, 3, 2]  # queued while the loop was busy submitting: batches of up to 3
    # a batch is one record per namespace: the stand-in fails (or is unreachable for) a whole batch
    assert stored == ["t0", "t1", "t2"] and spooled == ["unreachable", "t7"]
    assert observed == stored  # analysis hears only of stored turns
    assert counts == {("ns", "turns_failed"): 3, ("ns", "turns_written"): 3}

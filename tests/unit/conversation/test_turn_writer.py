"""Write-behind of turns: order, batching, flush, failures (the store is a recording callable)."""

import threading
from collections import Counter

from kgmem.conversation import Turn
from kgmem.conversation.writer import TurnWriter


def _counter() -> tuple[Counter, object]:
    counts: Counter = Counter()

    def count(ns, name, n=1):
        counts[(ns, name)] += n

    return counts, count


def test_turns_are_stored_in_order_in_batches_then_observed():
    gate = threading.Event()
    batches, observed = [], []

    def record(ns, turns):
        gate.wait(5)
        batches.append((ns, [t.text for t in turns]))

    writer = TurnWriter(record, lambda ns, t: observed.append(t.text), _counter()[1], batch_size=3)
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


def test_failed_batch_is_counted_and_the_writer_keeps_going():
    counts, count = _counter()
    stored = []

    def record(ns, turns):
        if turns[0].text == "bad":
            raise RuntimeError("neo4j down")
        stored.extend(t.text for t in turns)

    writer = TurnWriter(record, lambda ns, t: None, count, batch_size=1)
    writer.submit("ns", Turn("s", "user", "bad"))
    writer.submit("ns", Turn("s", "user", "good"))
    assert writer.close(5)
    assert stored == ["good"]
    assert counts == {("ns", "turns_failed"): 1, ("ns", "turns_written"): 1}

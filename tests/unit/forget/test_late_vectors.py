"""The check after a writer's vector upsert: the vectors of ids a forget tombstoned meanwhile go."""

from kgmem.runner import Read, VectorDelete
from kgmem.tombstones import drop_forgotten_op, written_gone


def drive(op, tombstoned: set[str]):
    """Run ``op`` against a fake graph whose tombstones are ``tombstoned``; the requests it made."""
    made, value = [], None
    try:
        while True:
            req = op.send(value)
            made.append(req)
            if isinstance(req, Read) and req.name == "forget/tombstoned":
                value = [{"id": i, "at_ms": 1, "label": "Message"} for i in req.params["ids"] if i in tombstoned]
            else:
                value = None
    except StopIteration as stop:
        return stop.value, made


def test_only_tombstoned_ids_lose_their_vectors_in_one_read_and_one_delete_per_kind():
    n, made = drive(drop_forgotten_op("ns", {"error": ["e1", "e2"], "fix": ["f1"]}), {"e2", "f1", "other"})
    assert n == 2
    assert [r.name for r in made if isinstance(r, Read)] == ["forget/tombstoned"]
    assert [(r.kind, list(r.ids)) for r in made if isinstance(r, VectorDelete)] == [("error", ["e2"]), ("fix", ["f1"])]


def test_ids_read_with_the_write_cost_no_read_and_nothing_tombstoned_deletes_nothing():
    n, made = drive(drop_forgotten_op("ns", {"message": ["m1", "m2"]}, written_gone([{"gone": ["m2"]}])), set())
    assert n == 1 and [type(r) for r in made] == [VectorDelete] and list(made[0].ids) == ["m2"]
    n, made = drive(drop_forgotten_op("ns", {"message": ["m1"]}, written_gone([])), set())
    assert (n, made) == (0, [])
    n, made = drive(drop_forgotten_op("ns", {"knowledge": [], "entity": []}), {"x"})
    assert (n, made) == (0, [])  # nothing written: no read

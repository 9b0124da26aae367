"""GraphStore's row conversion: the same dicts as ``Record.data()``, plain rows without its cost."""

import neo4j
from neo4j.time import DateTime

from kgmem.graph.store import _plain, record_dict


def _record(**values: object) -> neo4j.Record:
    return neo4j.Record(values.items())


def test_plain_rows_equal_the_drivers_conversion() -> None:
    rec = _record(
        id="m1",
        score=1.5,
        n=3,
        ok=True,
        none=None,
        expanded=[{"id": "m2", "path_ids": ["m1", "m2"], "weight": 0.9, "v_alpha": None}],
        tags=[],
    )
    assert record_dict(rec) == rec.data()
    assert list(record_dict(rec)) == list(rec.keys())  # column order kept


def test_other_values_go_through_the_drivers_conversion() -> None:
    ts = DateTime(2024, 5, 1, 12, 0, 0)
    rec = _record(id="m1", ts=ts, nested=[{"at": ts}])
    assert record_dict(rec) == rec.data() == {"id": "m1", "ts": ts, "nested": [{"at": ts}]}


def test_a_value_nested_deep_in_a_row_is_seen() -> None:
    ts = DateTime(2024, 5, 1, 12, 0, 0)
    assert _plain([{"id": "m1", "expanded": [{"path_ids": ["m1", "m2"], "weight": 0.5}], "tags": []}])
    assert not _plain([{"id": "m1", "expanded": [{"path_ids": ["m1", "m2"], "ts": ts}]}])
    assert not _plain({"rows": [{"id": "m1"}, ["x", ts]]})

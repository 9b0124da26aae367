"""The counter files clients share: locked read-modify-write, atomic replace, nothing half-saved."""

from pathlib import Path

import pytest

from kgmem.stats_file import read_json, update_json


def test_an_update_is_saved_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "stats" / "c.json"
    assert read_json(path) == {}
    for _ in range(2):
        with update_json(path) as data:
            data["n"] = data.get("n", 0) + 1
    assert read_json(path) == {"n": 2}
    assert sorted(p.name for p in path.parent.iterdir()) == ["c.json", "c.json.lock"]  # no temporary file left


def test_nothing_is_saved_when_the_block_raises(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    with update_json(path) as data:
        data["n"] = 1
    with pytest.raises(KeyError), update_json(path) as data:
        data["n"] = 5
        raise KeyError("boom")
    assert read_json(path) == {"n": 1}


@pytest.mark.parametrize("text", ["[1, 2]", "{not json", ""])
def test_a_file_that_is_not_an_object_reads_as_empty(tmp_path: Path, text: str) -> None:
    path = tmp_path / "c.json"
    path.write_text(text, encoding="utf-8")
    assert read_json(path) == {}
    with update_json(path) as data:  # and is replaced by the first update
        data["n"] = 1
    assert read_json(path) == {"n": 1}

"""Pass 1 of `kgmem import` on session-state lines (format 2): what is accepted, what is refused
before anything is written, and that a format-1 file is still read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgmem.errors import ImportFormatError
from kgmem.maintenance.importer import check_export

NODE = {"node": "Knowledge", "id": "k", "props": {"id": "k", "ns": "A", "content": "x"}}
QUERY = {
    "state": "KgmemQuery",
    "props": {
        "id": "q1",
        "ns": "A",
        "session": "S",
        "hit_ids": ["k"],
        "hit_kinds": ["knowledge"],
        "expires_ms": 10**13,
        "judged_ms": 5,
    },
}
OVERLAY = {
    "state": "KgmemOverlay",
    "props": {
        "ns": "A",
        "session": "S",
        "item_id": "k",
        "label": "Knowledge",
        "d_alpha": 1.0,
        "d_beta": 0.0,
        "base_alpha": 1.0,
        "base_beta": 1.0,
    },
}
SESSION = {
    "state": "KgmemSessionState",
    "props": {"ns": "A", "session": "S", "centroid": [0.5, 0.5], "n": 2, "shifts": 0},
}


def write(tmp_path: Path, *docs: dict, version: int = 2, end: dict | None = None) -> Path:
    states = sum(1 for d in docs if "state" in d)
    nodes = sum(1 for d in docs if "node" in d)
    trailer = end or {"end": True, "nodes": nodes, "relationships": 0, **({"state": states} if version >= 2 else {})}
    path = tmp_path / "f.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in [{"kgmem_export": version, "ns": "A"}, *docs, trailer]))
    return path


def test_state_lines_are_counted_per_label(tmp_path: Path) -> None:
    check = check_export(write(tmp_path, NODE, QUERY, OVERLAY, SESSION))
    assert dict(check.state) == {"KgmemQuery": 1, "KgmemOverlay": 1, "KgmemSessionState": 1}
    assert check.version == 2 and check.nodes["Knowledge"] == 1


def test_a_format_1_file_is_read(tmp_path: Path) -> None:
    check = check_export(write(tmp_path, NODE, version=1))
    assert check.version == 1 and not check.state


@pytest.mark.parametrize(
    ("docs", "message"),
    [
        ([{"state": "KgmemSpool", "props": {"id": "x", "ns": "A"}}], "session-state label 'KgmemSpool' is not allowed"),
        ([{"state": "KgmemOverlay", "props": {**OVERLAY["props"], "item_id": ""}}], "KgmemOverlay needs item_id"),
        ([{"state": "KgmemQuery", "props": {**QUERY["props"], "id": 7}}], "KgmemQuery needs id"),
        (
            [{"state": "KgmemSessionState", "props": {**SESSION["props"], "ns": "B"}}],
            "props.ns must be the file's namespace",
        ),
        ([QUERY, NODE], "node after session state"),
        ([{"state": "KgmemQuery", "props": {**QUERY["props"], "hit_ids": ["k", None]}}], "cannot hold null"),
    ],
)
def test_bad_state_lines_are_refused(tmp_path: Path, docs: list[dict], message: str) -> None:
    with pytest.raises(ImportFormatError, match=message):
        check_export(write(tmp_path, *docs))


def test_state_in_a_format_1_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ImportFormatError, match="session state in a format-1 file"):
        check_export(write(tmp_path, QUERY, version=1, end={"end": True, "nodes": 0, "relationships": 0}))


def test_a_missing_state_count_is_a_truncated_file(tmp_path: Path) -> None:
    with pytest.raises(ImportFormatError, match="end marker counts None session-state lines"):
        check_export(write(tmp_path, QUERY, end={"end": True, "nodes": 0, "relationships": 0}))

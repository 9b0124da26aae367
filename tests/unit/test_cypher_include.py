"""`// @include` fragments in kgmem.cypher (pure: temporary Cypher roots, plus the real tree)."""

from pathlib import Path

import pytest

from kgmem import cypher
from kgmem.errors import CypherIncludeCycle, CypherNotFound


def _write(root: Path, name: str, text: str) -> None:
    path = root / f"{name}.cypher"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        pytest.param(
            {"a/fragments/part": "  MATCH (n)\n", "a/main": "// head\n  // @include a/fragments/part\nRETURN n\n"},
            "// head\n  MATCH (n)\nRETURN n\n",
            id="whole-line-replaced",
        ),
        pytest.param(
            {"f": "MATCH (n)", "a/main": "// @include f\nRETURN n"},
            "MATCH (n)\nRETURN n",
            id="fragment-without-final-newline",
        ),
        pytest.param(
            {"f": "X\n", "a/main": "RETURN 1 // @include f\n// see @include f for details\n"},
            "RETURN 1 // @include f\n// see @include f for details\n",
            id="only-whole-line-directives",
        ),
        pytest.param(
            {
                "inner": "WITH 1 AS x\n",
                "outer": "// @include inner\nWITH x\n",
                "a/main": "// @include outer\n// @include inner\nRETURN x\n",
            },
            "WITH 1 AS x\nWITH x\nWITH 1 AS x\nRETURN x\n",
            id="nested",
        ),
    ],
)
def test_include_expands(tmp_path: Path, files: dict[str, str], expected: str) -> None:
    for name, text in files.items():
        _write(tmp_path, name, text)
    assert cypher.render(tmp_path, "a/main") == expected


def test_cycle_raises_naming_the_chain(tmp_path: Path) -> None:
    _write(tmp_path, "main", "// @include a\n")
    _write(tmp_path, "a", "// @include b\n")
    _write(tmp_path, "b", "// @include a\n")
    with pytest.raises(CypherIncludeCycle, match="main -> a -> b -> a"):
        cypher.render(tmp_path, "main")
    _write(tmp_path, "self", "// @include self\n")
    with pytest.raises(CypherNotFound, match="self -> self"):  # a cycle is a CypherNotFound too
        cypher.render(tmp_path, "self")


def test_missing_fragment_names_the_including_file(tmp_path: Path) -> None:
    _write(tmp_path, "q/main", "// @include q/fragments/gone\n")
    with pytest.raises(CypherNotFound, match=r"gone\.cypher, included from q/main") as err:
        cypher.render(tmp_path, "q/main")
    assert not isinstance(err.value, CypherIncludeCycle)


@pytest.mark.parametrize("bad", ["../outside", "/etc/passwd", "Upper/case", "a/../b", "x.cypher"])
def test_bad_fragment_name_is_rejected(tmp_path: Path, bad: str) -> None:
    (tmp_path.parent / "outside.cypher").write_text("MATCH (secret) RETURN secret\n", encoding="utf-8")
    _write(tmp_path, "main", f"// @include {bad}\n")
    with pytest.raises(CypherNotFound, match=r"invalid Cypher file name .*included from main"):
        cypher.render(tmp_path, "main")


def test_names_skip_fragments_directories(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write(tmp_path, "r/one", "RETURN 1\n")
    _write(tmp_path, "r/fragments/part", "RETURN 2\n")
    _write(tmp_path, "r/sub/fragments/deep", "RETURN 3\n")
    monkeypatch.setattr(cypher, "cypher_root", lambda: tmp_path)
    assert cypher.names() == ["r/one"]
    assert cypher.names("r") == ["r/one"]


def test_real_tree_shares_known_fix_subqueries() -> None:
    """apply_events and known_fixes carry the same `direct` / `similar` subqueries, expanded."""
    assert not any("/fragments/" in n for n in cypher.names())
    for part in ("learning/fragments/known_fix_direct", "learning/fragments/known_fix_similar"):
        body = cypher.load(part)
        assert "CALL (e)" in body
        assert body in cypher.load("learning/apply_events")
        assert body in cypher.load("learning/known_fixes")
    for name in cypher.names():  # nothing reaches Neo4j unexpanded
        assert not any(cypher._INCLUDE.match(line) for line in cypher.load(name).splitlines()), name

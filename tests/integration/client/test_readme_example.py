"""The README's Usage examples run as written (as a user's script, on the real stack: doc_blocks.run_python),
with assertions on what they stored. tests/integration/docs/test_doc_blocks.py leaves these blocks to this test."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from kgmem.config import Settings

README = Path(__file__).resolve().parents[3] / "README.md"
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "docs"))
from doc_blocks import run_python  # type: ignore[import-not-found]  # noqa: E402


def usage_blocks() -> list[str]:
    """The blocks this module runs: the first two python blocks from the README's Usage section on (the
    agent loop and the async example; none when there is no such section)."""
    text = README.read_text(encoding="utf-8")
    if "## Usage" not in text:
        return []
    return re.findall(r"```python\n(.*?)```", text[text.index("## Usage") :], re.S)[:2]


def _usage_block(index: int = 0) -> str:
    return usage_blocks()[index]


def _env(ns: str, tmp_path: Path) -> dict[str, str]:
    env = {**os.environ, "KGMEM_NAMESPACE": ns, "KGMEM_CHROMA__PATH": str(tmp_path / "chroma")}
    env.pop("ANTHROPIC_API_KEY", None)
    return env


def test_readme_agent_loop_runs_as_written(settings: Settings, driver, ns: str, tmp_path: Path, capfd) -> None:
    run_python(_usage_block(), "README.md usage", _env(ns, tmp_path))
    out = capfd.readouterr().out
    assert out.splitlines()[0].startswith("True ")  # ok.ok and the recovery's fix id
    records, _, _ = driver.execute_query(
        """MATCH (e:ErrorPattern {ns: $ns})-[r:RESOLVED_BY]->(f:Fix)
           RETURN f.description AS d, r.source AS source, r.successes AS n ORDER BY d""",
        ns=ns,
    )
    fixes = {r["d"]: (r["source"], r["n"]) for r in records}
    # one recovery, named by resolve() and held once; the correction is the user's fix
    assert fixes == {
        "use the pgbouncer port 6432": ("explicit", 2),
        "Always connect through pgbouncer on port 6432": ("user", 1),
    }


def test_readme_async_example_runs_as_written(settings: Settings, driver, ns: str, tmp_path: Path) -> None:
    block = _usage_block(1)
    assert "AsyncKGMem" in block
    run_python(block, "README.md async usage", _env(ns, tmp_path))
    records, _, _ = driver.execute_query(
        "MATCH (m:Message {ns: $ns})-[:PART_OF]->(s:Session {ns: $ns}) RETURN s.key AS key, "
        "s.ended_at IS NOT NULL AS ended, count(m) AS n",
        ns=ns,
    )
    assert [(r["key"], r["ended"], r["n"]) for r in records] == [("run-42", True, 1)]

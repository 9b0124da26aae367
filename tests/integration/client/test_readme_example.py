"""The README's agent-loop example runs as written (in a fresh interpreter, on the real stack)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from kgmem.config import Settings

README = Path(__file__).resolve().parents[3] / "README.md"


def _usage_block(index: int = 0) -> str:
    text = README.read_text(encoding="utf-8")
    usage = text[text.index("## Usage") :]
    return re.findall(r"```python\n(.*?)```", usage, re.S)[index]


def test_readme_agent_loop_runs_as_written(settings: Settings, driver, ns: str, tmp_path: Path) -> None:
    env = {
        **os.environ,
        "KGMEM_NAMESPACE": ns,
        "KGMEM_CHROMA__PATH": str(tmp_path / "chroma"),
        "PYTHONPATH": str(README.parent),
    }
    env.pop("ANTHROPIC_API_KEY", None)
    run = subprocess.run([sys.executable, "-c", _usage_block()], env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.splitlines()[0].startswith("True ")  # ok.ok and the recovery's fix id
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
    env = {
        **os.environ,
        "KGMEM_NAMESPACE": ns,
        "KGMEM_CHROMA__PATH": str(tmp_path / "chroma"),
        "PYTHONPATH": str(README.parent),
    }
    block = _usage_block(1)
    assert "AsyncKGMem" in block
    run = subprocess.run([sys.executable, "-c", block], env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    records, _, _ = driver.execute_query(
        "MATCH (m:Message {ns: $ns})-[:PART_OF]->(s:Session {ns: $ns}) RETURN s.key AS key, "
        "s.ended_at IS NOT NULL AS ended, count(m) AS n",
        ns=ns,
    )
    assert [(r["key"], r["ended"], r["n"]) for r in records] == [("run-42", True, 1)]

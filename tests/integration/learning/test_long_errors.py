"""A megabyte-long error is bounded (``[learning] error_max_chars``) wherever it enters — the sync and
async clients, resolve by message, the ingest CLI — and every entry point gives it the same error
pattern, on the real stack. (Timings are in benchmarks/learning.py long-errors, not asserted here.)"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kgmem import AsyncKGMem, KGMem
from kgmem.cli import main
from kgmem.config import Settings

pytestmark = pytest.mark.integration

HEAD = "make: *** [Makefile:12: all] Error 2\n"
TAIL = "\nerror: linker command failed with exit code 1 (use -v to see invocation)\n"
LOG = "".join(f"[build] step {i}: compiling module_{i}.c -> module_{i}.o\n" for i in range(30_000))
BIG = HEAD + LOG + TAIL  # about 1.4 MB


def _stored(mem: KGMem, ns: str, error_id: str) -> dict:
    return (
        mem.graph.driver.execute_query(
            "MATCH (e:ErrorPattern {ns: $ns, id: $id}) RETURN e.occurrences AS n, e.example AS example, "
            "e.pattern AS pattern",
            ns=ns,
            id=error_id,
        )
        .records[0]
        .data()
    )


def test_a_long_error_gets_one_pattern_through_every_entry_point(
    mem: KGMem, settings: Settings, embedder, ns: str, tmp_path: Path, monkeypatch
) -> None:
    assert len(BIG) > 1_000_000
    obs = mem.tool_result("make", {}, error=BIG)
    assert obs.pattern.startswith("make: ***") and len(obs.pattern) <= 2000 and obs.category == "tool_error"
    stored = _stored(mem, ns, obs.id)
    limit = mem.settings.learning.example_max_chars
    assert stored["example"] == BIG[:limit]  # the example is the message's head, as before the bound

    out = mem.resolve(BIG, "build with -j1 and read the first error", tool="make")  # by message: same id
    assert out.error_id == obs.id

    async def via_async() -> str:
        async with AsyncKGMem(settings, embedder=embedder) as amem:
            return (await amem.tool_result("make", {}, error=BIG)).id

    assert asyncio.run(via_async()) == obs.id

    path = tmp_path / "events.jsonl"
    path.write_text(json.dumps({"type": "tool_result", "tool": "make", "error": BIG}) + "\n")
    monkeypatch.setenv("KGMEM_NAMESPACE", ns)
    monkeypatch.setenv("KGMEM_CHROMA__PATH", str(settings.chroma_path))
    result = CliRunner().invoke(main, ["ingest", str(path), "--no-progress"])
    assert result.exit_code == 0, result.output
    mem.flush()
    assert _stored(mem, ns, obs.id)["n"] == 3  # sync, async, ingest: one pattern, three occurrences


def test_the_bound_is_configurable(settings: Settings, driver, embedder, ns: str) -> None:
    small = settings.model_copy(update={"learning": settings.learning.model_copy(update={"error_max_chars": 300})})
    client = KGMem(small, driver=driver, embedder=embedder)
    try:
        obs = client.tool_result("make", {}, error=HEAD + LOG[:5000] + TAIL)
        example = _stored(client, ns, obs.id)["example"]
        assert len(example) <= 300 and example.startswith(HEAD) and example.endswith(TAIL)
    finally:
        client.close()

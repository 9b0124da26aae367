"""The operations guide's backup and restore (docs/operations.md) does what it says, on the real stack.

test_doc_blocks.py runs every command of the guide in a scratch namespace; this test runs the
namespace backup block on a namespace that holds data — errors and a fix, turns, knowledge, a judged
search — and checks that a restore after the namespace was lost brings back both stores: the same
nodes and relationships in Neo4j, the vectors in Chroma (the vector leg finds the same items), and a
query id that still takes its one judgement.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from kgmem.config import Settings
from kgmem.maintenance import delete_namespace

sys.path.insert(0, str(Path(__file__).resolve().parent))
from doc_blocks import ROOT, collect, commands  # noqa: E402

GUIDE = ROOT / "docs" / "operations.md"
MARKER = "<!-- operations: namespace-backup -->"
#: the namespace the guide's commands name; the test puts its own in its place
GUIDE_NS = "my-agent"

EVENTS = [
    {
        "type": "tool_result",
        "tool": "psql",
        "params": {"port": 5432},
        "session": "s1",
        "error": "could not connect to server: Connection refused (10.0.0.5:5432)",
    },
    {"type": "tool_result", "tool": "psql", "params": {"port": 6432}, "session": "s1"},
    {
        "type": "turn",
        "session": "s1",
        "role": "user",
        "text": "Staging runs behind pgbouncer on port 6432",
        "ref": "t1",
    },
    {"type": "turn", "session": "s1", "role": "assistant", "text": "Noted: connect to staging on 6432", "ref": "t2"},
    {
        "type": "knowledge",
        "content": "Staging databases are reached through pgbouncer",
        "knowledge_type": "fact",
        "session": "s1",
    },
    {"type": "session_end", "session": "s1"},
]


def backup_block() -> list[list[str]]:
    """The argv of each command of the guide's namespace backup block."""
    text = GUIDE.read_text(encoding="utf-8")
    assert MARKER in text, f"{GUIDE}: the namespace backup block is missing"
    line = text[: text.index(MARKER)].count("\n") + 2  # the fence follows the marker
    [block] = [b for b in collect([GUIDE]) if b.line == line]
    return [cmd.argv for cmd in commands(block.code)]


@pytest.fixture
def user_env(
    settings: Settings, base_settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> dict[str, str]:
    """A user's environment on the test Neo4j: the test's namespace, its own KGMEM_HOME (embedded
    Chroma inside) and working directory."""
    home = tmp_path / "home"
    home.mkdir()
    if base_settings.models_dir.is_dir():
        (home / "models").symlink_to(base_settings.models_dir, target_is_directory=True)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    cfg = base_settings.neo4j
    return {
        "KGMEM_HOME": str(home),
        "KGMEM_NAMESPACE": settings.namespace,
        "KGMEM_NEO4J__URI": cfg.uri,
        "KGMEM_NEO4J__USER": cfg.user,
        "KGMEM_NEO4J__PASSWORD": cfg.password.get_secret_value() if cfg.password else "",
        "ANTHROPIC_API_KEY": "",
    }


def _kgmem(args: list[str], env: dict[str, str]) -> str:
    from kgmem.cli import main

    result = CliRunner().invoke(main, args, env=env, catch_exceptions=False)
    assert result.exit_code == 0, f"kgmem {' '.join(args)} exited {result.exit_code}:\n{result.output}"
    return result.output


def _graph_counts(driver, ns: str) -> dict[str, int]:  # type: ignore[no-untyped-def]
    nodes, _, _ = driver.execute_query(
        "MATCH (n {ns: $ns}) UNWIND labels(n) AS label RETURN label, count(*) AS n", ns=ns
    )
    rels, _, _ = driver.execute_query(
        "MATCH (a {ns: $ns})-[r]->(b {ns: $ns}) RETURN type(r) AS type, count(*) AS n", ns=ns
    )
    return {**{f":{r['label']}": r["n"] for r in nodes}, **{f"-{r['type']}-": r["n"] for r in rels}}


def _vector_hits(env: dict[str, str], query: str) -> set[str]:
    result = json.loads(_kgmem(["search", query, "--k", "10", "--json"], env))
    return {hit["id"] for hit in result["hits"] if "vector" in hit["provenance"]["legs"]}


def test_namespace_backup_then_restore_after_loss_brings_back_graph_vectors_and_query_log(
    user_env: dict[str, str], ns: str, driver, graph, tmp_path: Path
) -> None:
    events = tmp_path / "work" / "events.jsonl"
    events.write_text("".join(json.dumps(e) + "\n" for e in EVENTS), encoding="utf-8")
    _kgmem(["ingest", str(events), "--no-progress"], user_env)
    query = json.loads(_kgmem(["search", "staging pgbouncer port", "--json"], user_env))
    vectors_before = _vector_hits(user_env, "staging pgbouncer port")
    before = _graph_counts(driver, ns)  # the query log holds both searches
    assert before[":ErrorPattern"] == 1 and before[":Message"] == 2 and before[":Knowledge"] >= 1, before
    assert before["-RESOLVED_BY-"] == 1 and vectors_before, (before, vectors_before)

    backup, restore = backup_block()
    assert backup[:2] == ["kgmem", "export"] and restore[:2] == ["kgmem", "import"]
    _kgmem([ns if a == GUIDE_NS else a for a in backup[1:]], user_env)

    delete_namespace(graph, None, ns)  # the namespace is lost ...
    from kgmem import KGMem
    from kgmem.config import load_settings
    from kgmem.kinds import BY_NAME

    env_before = dict(os.environ)
    os.environ.update(user_env)
    try:
        with KGMem(load_settings()) as mem:  # ... its vectors too
            mem.vectors.drop_namespace(ns, list(BY_NAME))
    finally:
        os.environ.clear()
        os.environ.update(env_before)
    assert _graph_counts(driver, ns) == {}

    out = _kgmem([ns if a == GUIDE_NS else a for a in restore[1:]], user_env)
    assert re.search(r"vectors rebuilt: [1-9]", out), out
    assert _graph_counts(driver, ns) == before
    assert _vector_hits(user_env, "staging pgbouncer port") == vectors_before
    # the query log came back: the query id answered before the loss takes its one judgement
    hit = query["hits"][0]["id"]
    judged = json.loads(
        _kgmem(["feedback", query["query_id"], "--used", hit, "--outcome", "success", "--json"], user_env)
    )
    assert judged["counted"] is True

"""The operations guide (docs/operations.md) does what it says, on the real stack, typed as a user types it.

test_doc_blocks.py runs every `kgmem` command of the guide in a scratch namespace; here run the blocks
whose effect is the point, taken from the guide (found by their ``<!-- operations: NAME -->`` marker):

- the namespace backup block, on a namespace that holds data — errors and a fix, turns, knowledge, a
  judged search: a restore after the namespace was lost brings back both stores (the same nodes and
  relationships in Neo4j, the vectors in Chroma) and a query id that still takes its one judgement;
- the local Neo4j block and the whole-install backup and restore blocks, line by line in bash (each
  ``kgmem`` a process of its own: no client may run while the stores are copied) on a private install
  (``KGMEM_HOME`` is the session's private Neo4j, tests/private_neo4j.py): the restore brings back what
  the archive held — a memory written before the backup — and not what was written after it;
- ``chroma run`` on a free port: kgmem, configured by the guide's ``[chroma] url``, moves a namespace's
  vectors to it with ``kgmem reindex`` and finds them there.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from click.testing import CliRunner

from kgmem.config import Settings
from kgmem.maintenance import delete_namespace

if TYPE_CHECKING:
    from kgmem import KGMem
    from kgmem.vectors import Embedder

sys.path.insert(0, str(Path(__file__).resolve().parent))
from doc_blocks import ROOT, Block, collect, commands  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from ports import free_ports  # type: ignore[import-not-found]  # noqa: E402

GUIDE = ROOT / "docs" / "operations.md"
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


def guide_block(name: str) -> Block:
    """The guide's code block marked ``<!-- operations: NAME -->``."""
    marker = f"<!-- operations: {name} -->"
    text = GUIDE.read_text(encoding="utf-8")
    assert marker in text, f"{GUIDE}: the block marked {marker} is missing"
    line = text[: text.index(marker)].count("\n") + 2  # the fence follows the marker
    [block] = [b for b in collect([GUIDE]) if b.line == line]
    return block


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

    backup, restore = [cmd.argv for cmd in commands(guide_block("namespace-backup").code)]
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


# -- the whole install, with the server stopped ---------------------------------------------------
BEFORE = "The staging deploy keys live in vault seven"
AFTER = "Release builds are frozen on Fridays"
#: a line of the guide that starts a JVM may wait for it as long as the private server's start timeout
LINE_TIMEOUT_S = 900


def shell_env(server: Settings, home: Path, ns: str) -> dict[str, str]:
    """A user's shell for the private install: ``KGMEM_HOME`` and ``[neo4j]`` (ports, password, sizes) of the
    private server, namespace ``ns``, this checkout's kgmem and the venv's ``kgmem`` / ``chroma`` first on PATH;
    no other ``KGMEM_*`` variable and no LLM key of the test run."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("KGMEM_") and k != "ANTHROPIC_API_KEY"}
    cfg = server.neo4j
    assert cfg.password is not None
    neo4j = {
        "uri": cfg.uri,
        "user": cfg.user,
        "password": cfg.password.get_secret_value(),
        "bolt_port": cfg.bolt_port,
        "http_port": cfg.http_port,
        "heap": cfg.heap,
        "pagecache": cfg.pagecache,
        "version": cfg.version,
        "browser_version": cfg.browser_version,
        "start_timeout_s": cfg.start_timeout_s,
    }
    env.update({f"KGMEM_NEO4J__{key.upper()}": str(value) for key, value in neo4j.items()})
    env.update(
        KGMEM_HOME=str(home),
        KGMEM_NAMESPACE=ns,
        PYTHONPATH=str(ROOT),
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
    )
    return env


def typed(line: str, env: dict[str, str], cwd: Path) -> str:
    """Run ``line`` in bash as a user types it (a process of its own); returns its stdout."""
    proc = subprocess.run(
        ["bash", "-c", line], env=env, cwd=cwd, capture_output=True, text=True, timeout=LINE_TIMEOUT_S, check=False
    )
    assert proc.returncode == 0, f"{line!r} exited {proc.returncode}:\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


def typed_block(name: str, env: dict[str, str], cwd: Path) -> dict[str, str]:
    """Run the guide's block ``name`` line by line; returns each line's stdout."""
    return {cmd.line: typed(cmd.line, env, cwd) for cmd in commands(guide_block(name).code)}


def knowledge(server: Settings, ns: str) -> set[str]:
    """The content of every knowledge item of ``ns`` in the private server's graph."""
    from kgmem.graph import connect

    with connect(server) as drv:
        records, _, _ = drv.execute_query("MATCH (k:Knowledge {ns: $ns}) RETURN k.content AS content", ns=ns)
    return {r["content"] for r in records}


@contextmanager
def agent(server: Settings, ns: str, embedder: Embedder) -> Iterator[KGMem]:
    """A client of the private install in namespace ``ns``, as an agent's process runs one: its embedded Chroma
    (``$KGMEM_HOME/chroma``) is closed when it ends, as the process's exit would close it (the guide copies the
    stores with no client running). The session's model, not a new load."""
    from kgmem import KGMem
    from kgmem.vectors import open_chroma

    anthropic = server.anthropic.model_copy(update={"api_key": None})
    settings = server.model_copy(update={"namespace": ns, "anthropic": anthropic})
    chroma = open_chroma(settings)
    try:
        with KGMem(settings, chroma=chroma, embedder=embedder) as mem:
            yield mem
    finally:
        chroma.close()


@pytest.mark.slow  # stops and starts the private Neo4j twice
def test_whole_install_backup_then_restore_brings_back_what_the_archive_held(
    private_neo4j, embedder, tmp_path: Path
) -> None:
    from kgmem.server import LocalNeo4j

    ns = "operations-guide"
    server = private_neo4j("user", namespace=ns).server_settings  # running: the session's private Neo4j
    home = server.home
    assert server.chroma_path == home / "chroma", server.chroma_path  # what the guide's tar lines copy
    work = tmp_path / "work"
    work.mkdir()
    env = shell_env(server, home, ns)
    try:
        with agent(server, ns, embedder) as mem:
            mem.add_knowledge(BEFORE)

        out = typed_block("local-neo4j", env, work)  # up (already running: reused) ... down
        status = json.loads(next(o for line, o in out.items() if "status --json" in line))
        assert status["running"] and status["bolt_port"] == server.neo4j.bolt_port, status
        assert status["home"] == str(server.neo4j_home), status
        assert not LocalNeo4j(server).status().running

        typed_block("install-backup", env, work)  # down (a no-op now), tar, up
        with tarfile.open(work / "kgmem-backup.tar.gz") as archive:
            names = archive.getnames()
        assert any(n.startswith("neo4j/data/databases/neo4j/") for n in names), names[:20]
        assert any(n.startswith("chroma/") for n in names), names[:20]
        assert LocalNeo4j(server).status().running

        with agent(server, ns, embedder) as mem:  # after the backup: the restore must not bring this back
            mem.add_knowledge(AFTER)
        assert knowledge(server, ns) == {BEFORE, AFTER}

        typed_block("install-restore", env, work)  # down, rm, tar -x, up
        assert LocalNeo4j(server).status().running
        assert knowledge(server, ns) == {BEFORE}
        with agent(server, ns, embedder) as mem:  # its vector leg reads the Chroma the archive brought back
            hits = mem.search("where do the staging deploy keys live").hits
        legs = {hit.text: set(hit.provenance.legs) for hit in hits}
        assert {"vector", "keyword"} <= legs.get(BEFORE, set()), legs
    finally:
        shutil.rmtree(home / "chroma", ignore_errors=True)


# -- a Chroma server -------------------------------------------------------------------------------
def with_value(argv: list[str], option: str, value: str) -> list[str]:
    """``argv`` with the value after ``option`` replaced (the option must be there)."""
    assert option in argv, f"{argv}: no {option}"
    i = argv.index(option) + 1
    return [*argv[:i], value, *argv[i + 1 :]]


def serve(argv: list[str], env: dict[str, str], url: str, log: Path) -> subprocess.Popen:
    """Start ``argv`` (a ``chroma run``) and wait until ``url`` answers Chroma's heartbeat."""
    with log.open("w") as out:
        proc = subprocess.Popen(argv, env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while True:
        if proc.poll() is not None:
            raise AssertionError(f"{' '.join(argv)} exited {proc.returncode}:\n{log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(f"{url}/api/v2/heartbeat", timeout=2) as resp:
                if resp.status == 200:
                    return proc
        except OSError:
            pass
        if time.monotonic() > deadline:
            stop(proc)
            raise AssertionError(f"{' '.join(argv)} did not answer its heartbeat within 120 s")
        time.sleep(0.3)


def stop(proc: subprocess.Popen) -> int:
    """Stop a server started by :func:`serve` (SIGTERM, SIGKILL after 30 s); returns its exit code."""
    proc.terminate()
    try:
        return proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.wait()


def test_chroma_run_serves_the_vectors_kgmem_reindex_moves_to_it(user_env: dict[str, str], mem, tmp_path: Path) -> None:
    [run] = commands(guide_block("chroma-server").code)
    assert run.argv[:2] == ["chroma", "run"], run.line
    [port] = free_ports(1)
    argv = with_value(with_value(run.argv, "--path", str(tmp_path / "chroma-server")), "--port", str(port))
    config = tmp_path / "kgmem.toml"  # the guide's [chroma] block, on this server's port
    config.write_text(guide_block("chroma-url").code.replace("127.0.0.1:8000", f"127.0.0.1:{port}"))
    env = {**user_env, "KGMEM_CONFIG": str(config)}
    shell = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}

    item = mem.add_knowledge(BEFORE)  # in the embedded store: the server starts empty
    proc = serve(argv, shell, f"http://127.0.0.1:{port}", tmp_path / "chroma-server.log")
    try:
        out = _kgmem(["reindex"], env)
        assert re.search(r"knowledge +nodes +1 +embedded +1\b", out), out
        assert item["id"] in _vector_hits(env, "where do the staging deploy keys live")
    finally:
        stop(proc)

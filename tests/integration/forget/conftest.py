"""Fixtures for the forget tests: a client whose analysis answers are scripted (real SDK, mocked
HTTP), a control namespace, and a raw scan of every store for a canary string."""

from __future__ import annotations

import io
import json
import os
import random
import string
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from kgmem.config import Settings
from kgmem.kinds import KINDS
from kgmem.maintenance import delete_namespace
from kgmem.retrieval import PRESETS


@pytest.fixture
def fsettings(settings: Settings, tmp_path: Path) -> Settings:
    """Per-test settings: own namespace, home (spool, counters) and Chroma directory; a fake API key."""
    anthropic = settings.anthropic.model_copy(
        update={"api_key": SecretStr("sk-test-not-real"), "max_retries": 1, "timeout_s": 5.0}
    )
    return settings.model_copy(update={"home": tmp_path / "home", "anthropic": anthropic})


@pytest.fixture
def control_ns(graph) -> Iterator[str]:
    name = f"control-{uuid.uuid4().hex[:12]}"
    yield name
    delete_namespace(graph, None, name)


def client_env(settings: Settings) -> dict[str, str]:
    """The environment of a client in another process on ``settings``' namespace, home, Chroma and Neo4j."""
    env = {
        **os.environ,
        "KGMEM_NAMESPACE": settings.namespace,
        "KGMEM_HOME": str(settings.home),
        "KGMEM_CHROMA__PATH": str(settings.chroma.path),
        "KGMEM_ANTHROPIC__API_KEY": "",
        "KGMEM_NEO4J__URI": settings.neo4j.uri,
    }
    if settings.neo4j.password is not None:
        env["KGMEM_NEO4J__PASSWORD"] = settings.neo4j.password.get_secret_value()
    return env


def held_writer(settings: Settings, body: str, opened: Path, commit: Path) -> subprocess.Popen:
    """Another process holding a write transaction open across a forget: it opens a transaction on
    the settings' Neo4j, runs ``body`` (Python: ``tx`` is the transaction; it sets ``written``), writes
    ``opened``, and commits once ``commit`` appears (60 s at most)."""
    env = {**os.environ, "KGMEM_NEO4J__URI": settings.neo4j.uri}
    password = settings.neo4j.password.get_secret_value() if settings.neo4j.password is not None else ""
    code = "\n".join(
        [
            "import pathlib, time",
            "import neo4j",
            "from kgmem import cypher",
            f"driver = neo4j.GraphDatabase.driver({settings.neo4j.uri!r}, auth=('neo4j', {password!r}))",
            "with driver.session() as s:",
            "    tx = s.begin_transaction()",
            textwrap.indent(textwrap.dedent(body).strip(), "    "),
            f"    pathlib.Path({str(opened)!r}).write_text(str(len(written)))",
            "    deadline = time.time() + 60",
            f"    while not pathlib.Path({str(commit)!r}).exists() and time.time() < deadline:",
            "        time.sleep(0.05)",
            "    tx.commit()",
            "driver.close()",
            "print('committed', len(written))",
        ]
    )
    return subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def forget_while_held(
    mem: Any,
    writer: subprocess.Popen,
    opened: Path,
    commit: Path,
    session: str,
    ready: Callable[[], bool],
    wait_s: float,
) -> Any:
    """Forget ``session`` while ``writer`` (:func:`held_writer`) holds its transaction open; the writer
    commits once ``ready()`` is true or after ``wait_s`` (the forget runs, or waits for the writer's
    locks, meanwhile). Returns the forget's result."""
    deadline = time.time() + 120
    while not opened.exists() and time.time() < deadline and writer.poll() is None:
        time.sleep(0.05)
    assert opened.exists(), writer.stdout.read().decode() if writer.stdout else ""
    done: dict = {}
    forget = threading.Thread(target=lambda: done.update(result=mem.forget(session=session)), daemon=True)
    forget.start()
    deadline = time.time() + wait_s
    while not ready() and time.time() < deadline:
        time.sleep(0.05)
    commit.write_text("1")
    out, _ = writer.communicate(timeout=120)
    assert writer.returncode == 0, out.decode()
    forget.join(120)
    assert "result" in done
    return done["result"]


def canary() -> str:
    """A token no text holds by chance."""
    return "zq" + uuid.uuid4().hex[:10] + "canary"


def person() -> str:
    """A unique person's name (two capitalised words, so the concept extractor sees a name)."""
    rng = random.Random(uuid.uuid4().int)
    return "Quorvexa " + "".join(rng.choice(string.ascii_lowercase) for _ in range(7)).capitalize()


def _count(text: str, needles: list[str]) -> int:
    low = text.lower()
    return sum(low.count(n.lower()) for n in needles)


def scan(mem: Any, driver: Any, ns: str, needles: list[str]) -> dict[str, int]:
    """Occurrences of ``needles`` in every store of namespace ``ns``, read raw: every node and
    relationship property in Neo4j (nodes of ``ns``, the forget tables, nodes without a namespace,
    and relationships touching any of them), the full-text index, every Chroma collection of ``ns``
    (documents and metadata), the spool directory's files, and an export of ``ns``."""
    from kgmem.maintenance.export import write_export

    found: dict[str, int] = {}
    records, _, _ = driver.execute_query(
        "MATCH (n) WHERE n.ns = $ns OR n.ns IS NULL RETURN labels(n) AS l, properties(n) AS p", parameters_={"ns": ns}
    )
    found["neo4j nodes"] = sum(_count(json.dumps(r.data(), default=str), needles) for r in records)
    records, _, _ = driver.execute_query(
        "MATCH (a)-[r]->(b) WHERE a.ns = $ns OR b.ns = $ns OR a.ns IS NULL OR b.ns IS NULL "
        "RETURN type(r) AS t, properties(r) AS p",
        parameters_={"ns": ns},
    )
    found["neo4j relationships"] = sum(_count(json.dumps(r.data(), default=str), needles) for r in records)
    hits = 0
    for needle in needles:
        phrase = '"' + needle.replace('"', "") + '"'
        records, _, _ = driver.execute_query(
            "CALL db.index.fulltext.queryNodes('kgmem_fulltext', $q) YIELD node "
            "WHERE node.ns = $ns RETURN count(*) AS n",
            parameters_={"q": phrase, "ns": ns},
        )
        hits += records[0]["n"]
    found["full-text index"] = hits
    chroma = 0
    for kind in KINDS:
        coll = mem.vectors.collection(ns, kind.name, create=False)
        if coll is not None:
            got = coll.get(include=["documents", "metadatas"])
            chroma += _count(json.dumps([got["ids"], got["documents"], got["metadatas"]], default=str), needles)
    found["chroma"] = chroma
    spool = mem.settings.spool_dir
    found["spool files"] = (
        sum(_count(p.read_text(encoding="utf-8", errors="replace"), needles) for p in spool.glob("*") if p.is_file())
        if spool.is_dir()
        else 0
    )
    out = io.StringIO()
    write_export(mem.graph, ns, out)
    found["export"] = _count(out.getvalue(), needles)
    return found


def snapshot(mem: Any, driver: Any, ns: str, queries: list[str], session: str | None = None) -> dict[str, Any]:
    """What must not change for data a forget does not name: node and relationship counts per label /
    type, vector counts per kind, and the hits of some searches without their keyword leg (as id sets): a
    full-text index's statistics span every namespace, so the forget itself or another test's writes can
    move a keyword score, and with it which items a search keeps; the counts above cover the keyword
    index's nodes."""
    records, _, _ = driver.execute_query(
        "MATCH (n {ns: $ns}) WHERE NOT n:KgmemTombstone AND NOT n:KgmemForget AND NOT n:KgmemQuery "
        "AND NOT n:KgmemSessionState AND NOT n:KgmemOverlay "
        "RETURN head(labels(n)) AS label, count(*) AS n ORDER BY label",
        parameters_={"ns": ns},
    )
    nodes = {r["label"]: r["n"] for r in records}
    records, _, _ = driver.execute_query(
        "MATCH (a {ns: $ns})-[r]->(b {ns: $ns}) RETURN type(r) AS t, count(*) AS n ORDER BY t", parameters_={"ns": ns}
    )
    rels = {r["t"]: r["n"] for r in records}
    vectors = {k.name: mem.vectors.count(ns, k.name) for k in KINDS}
    # A session's view: its turns (the namespace's other items may be the forgotten ones).
    kinds = ["message"] if session else None
    no_keyword = PRESETS["balanced"].with_overrides(use_keyword=False)
    hits = {
        q: sorted(h.id for h in mem.retrieval.search(q, ns, k=10, session=session, kinds=kinds, config=no_keyword).hits)
        for q in queries
    }
    return {"nodes": nodes, "relationships": rels, "vectors": vectors, "hits": hits}

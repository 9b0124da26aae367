"""The MCP server is a namespace boundary, in-process and over streamable HTTP (the official SDK client).

A server built for namespace A (in-process, as ``kgmem mcp --ns A`` builds it; and ``kgmem mcp --ns A
--transport http`` in its own process, the CLI's ``--ns`` included) is attacked with the data of look-alike namespaces
(``Team-A``, ``team_a``, ``team.a``, a trailing space, a Cyrillic ``а``, a zero-width space):
every tool with an ``ns`` / ``namespace`` argument, a report with an ``ns`` parameter, feedback on
the other namespace's query ids (search and context, with a ``response``), resolve and correction
with its error ids — and the ordinary calls whose answers must hold nothing of it. Escapes: a call
that returned anything of another namespace (one of its ids or markers) or changed it (every node
and relationship of each look-alike namespace is compared before and after). Positive controls
(the same calls on the server's own data) show that the checks can see a read and a write. (The
stdio transport itself: tests/integration/mcp/test_mcp_server.py.)
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kgmem import KGMem
from kgmem.config import Settings
from kgmem.maintenance import delete_namespace
from kgmem.mcp import build_server

mcp = pytest.importorskip("mcp")
from mcp import Client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from mcp.shared._httpx_utils import create_mcp_http_client  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
LOOK_ALIKES = ("Team-A", "team_a", "team.a", "team-a ", "te\u0430m-a", "team-a\u200b")  # vs "team-a"
ERROR = "deploy failed: pipeline red on stage build"
TOKEN = "mcp-boundary-test-token-0123456789"


def _seed(mem: KGMem, ns: str, marker: str) -> dict[str, Any]:
    """A namespace's data: an error with a fix, knowledge, a turn, a search and a context query."""
    obs = mem.tool_result("deploy", {"env": "prod"}, error=ERROR, session="standup", ns=ns)
    mem.resolve(obs, f"rerun the flaky stage {marker}", ns=ns)
    item = mem.add_knowledge(f"Deploys need a green pipeline first {marker}", type="fact", ns=ns)
    mem.turn(session="standup", role="user", text=f"the deploy pipeline broke again {marker}", ref="t1", ns=ns)
    mem.flush()
    found = mem.search("deploy pipeline green rerun stage", k=10, ns=ns)
    ctx = mem.context("deploy pipeline green rerun stage", ns=ns)
    assert found.hits and ctx.citations, ns
    return {
        "error_id": obs.id,
        "knowledge_id": item["id"],
        "query_id": found.query_id,
        "context_id": ctx.query_id,
        "hit": found.hits[0].id,
        "marker": marker,
    }


def _snapshot(driver: Any, ns: str) -> tuple[str, set[str]]:
    """A digest of every node of ``ns`` with its properties and outgoing relationships, and its ids."""
    records, _, _ = driver.execute_query(
        "MATCH (n) WHERE n.ns = $ns "
        "OPTIONAL MATCH (n)-[r]->(m) "
        "WITH n, collect([type(r), m.id, properties(r)]) AS rels "
        "RETURN labels(n) AS labels, properties(n) AS props, rels",
        ns=ns,
    )
    rows = sorted(
        json.dumps([r["labels"], r["props"], sorted(map(str, r["rels"]))], sort_keys=True, default=str) for r in records
    )
    ids = {r["props"]["id"] for r in records if isinstance(r["props"].get("id"), str)}
    return hashlib.sha256("\n".join(rows).encode()).hexdigest(), ids


def _wait_query_log(driver: Any, query_ids: list[str]) -> None:
    """The query log is written off the search path: wait until another process can read it."""
    deadline = time.monotonic() + 120
    while True:
        records, _, _ = driver.execute_query(
            "MATCH (q:KgmemQuery) WHERE q.id IN $ids RETURN count(q) AS n", ids=query_ids
        )
        if records[0]["n"] == len(query_ids):
            return
        assert time.monotonic() < deadline, "query log entries were not written"
        time.sleep(0.5)


class Tally:
    """Attack calls made and escapes seen."""

    def __init__(self, others: dict[str, dict[str, Any]], other_ids: set[str]) -> None:
        self.others = others
        self.other_ids = other_ids
        self.attempts = 0
        self.escapes: list[str] = []

    def leaked(self, what: str, payload: Any) -> None:
        """Record an escape if ``payload`` holds any id or marker of another namespace."""
        text = json.dumps(payload, default=str)
        found = [i for i in self.other_ids if i in text] + [
            d["marker"] for d in self.others.values() if d["marker"] in text
        ]
        if found:
            self.escapes.append(f"{what}: read {found[:3]}")


async def _attack(
    client: Client, own: dict[str, Any], others: dict[str, dict[str, Any]], tally: Tally
) -> dict[str, Any]:
    """Every tool, against every look-alike namespace; returns what the positive controls need."""
    valid: dict[str, dict[str, Any]] = {
        "tool_result": {"tool": "deploy", "params": {"env": "prod"}, "error": ERROR, "session": "standup"},
        "resolve": {"error_id": own["error_id"], "fix": "rerun the flaky stage " + own["marker"]},
        "correction": {"text": "the build stage needs a warm cache " + own["marker"]},
        "turn": {"session": "standup", "role": "user", "text": "still red " + own["marker"], "ref": "mcp1"},
        "end_session": {"session": "standup"},
        "search": {"query": "deploy pipeline green rerun stage", "k": 50},
        "context": {"query": "deploy pipeline green rerun stage", "session": "standup"},
        "feedback": {"query_id": own["query_id"], "used": [own["hit"]], "outcome": "success"},
        "learnings_list": {},
        "learnings_add": {"content": "Pipelines go green after a rerun " + own["marker"]},
        "learnings_history": {"id": own["knowledge_id"]},
        "report": {"name": "top_errors"},
        "forget": {"session": "standup", "dry_run": True},  # a real run would erase the positive controls
    }
    assert set(valid) == {t.name for t in (await client.list_tools()).tools}
    for other_ns, data in others.items():
        # 1. a namespace argument on every tool is refused (the SDK alone would ignore it)
        for tool, args in valid.items():
            for key in ("ns", "namespace"):
                tally.attempts += 1
                result = await client.call_tool(tool, {**args, key: other_ns})
                if not result.is_error:
                    tally.escapes.append(f"{tool}({key}={other_ns!r}) accepted")
                tally.leaked(f"{tool}({key}={other_ns!r})", result.content)
        # 2. nor is it a report parameter
        for key in ("ns", "NS", "ns_key", "namespace"):
            tally.attempts += 1
            result = await client.call_tool("report", {"name": "top_errors", "params": {key: other_ns}})
            if not result.is_error:
                tally.escapes.append(f"report(params.{key}={other_ns!r}) accepted")
            tally.leaked("report params", result.content)
        # 3. a reported call's own parameters are data: an `ns` among them is stored, in A, as given
        tally.attempts += 1
        result = await client.call_tool(
            "tool_result",
            {
                "tool": "kubectl",
                "params": {"ns": other_ns, "namespace": other_ns},
                "error": ERROR,
                "session": "standup",
            },
        )
        assert not result.is_error, result.content
        tally.leaked("tool_result(params.ns)", result.structured_content)
        # 4. the other namespace's ids are unknown here
        for args in (
            {"query_id": data["query_id"], "used": [data["hit"]], "outcome": "positive"},
            {"query_id": data["context_id"], "response": "It needs a rerun [1][2].", "outcome": "success"},
        ):
            tally.attempts += 1
            result = await client.call_tool("feedback", args)
            if not (result.is_error and "UnknownQuery" in result.content[0].text):
                tally.escapes.append(f"feedback({other_ns!r} query) -> {result.content}")
        for tool, args in (
            ("resolve", {"error_id": data["error_id"], "fix": "use the other team's fix"}),
            ("correction", {"text": "a correction of their error", "error_id": data["error_id"]}),
        ):
            tally.attempts += 1
            result = await client.call_tool(tool, args)
            if not (result.is_error and "ErrorNotFound" in result.content[0].text):
                tally.escapes.append(f"{tool}({other_ns!r} error) -> {result.content}")
        # their items cannot be read through history nor erased through forget (snapshots compare below)
        for tool, args in (
            ("learnings_history", {"id": data["knowledge_id"]}),
            ("forget", {"id": data["knowledge_id"]}),
            ("forget", {"id": data["error_id"]}),
        ):
            tally.attempts += 1
            result = await client.call_tool(tool, args)
            if not (result.is_error and "NotFound" in result.content[0].text):
                tally.escapes.append(f"{tool}({other_ns!r} id) -> {result.content}")
    # 5. what the ordinary calls answer holds nothing of the others
    seen: dict[str, Any] = {}
    for tool, args in valid.items():
        tally.attempts += 1
        result = await client.call_tool(tool, args)
        assert not result.is_error, (tool, result.content)
        tally.leaked(tool, result.structured_content)
        seen[tool] = result.structured_content
    for name in _enum_reports(await client.list_tools()):
        tally.attempts += 1
        result = await client.call_tool("report", {"name": name})
        assert not result.is_error, (name, result.content)
        tally.leaked(f"report {name}", result.structured_content)
        seen.setdefault("reports", []).append(result.structured_content)
    return seen


def _enum_reports(tools: Any) -> list[str]:
    [report] = [t for t in tools.tools if t.name == "report"]
    return report.input_schema["properties"]["name"]["enum"]


@pytest.fixture
def stack(settings: Settings, driver, embedder, graph, tmp_path: Path):  # noqa: ANN001, ANN201
    """Namespace A and its look-alikes seeded on the real stack; yields (A, own data, others, run)."""
    prefix = f"mcp{uuid.uuid4().hex[:6]}-"
    own_ns = prefix + "team-a"
    names = [prefix + n for n in LOOK_ALIKES]
    quiet = settings.model_copy(update={"analysis": settings.analysis.model_copy(update={"enabled": False})})
    mem = KGMem(quiet, driver=driver, embedder=embedder)
    try:
        own = _seed(mem, own_ns, "markerOWN")
        others = {ns: _seed(mem, ns, f"markerX{n}") for n, ns in enumerate(names)}
        mem.flush()
        _wait_query_log(
            driver,
            [own["query_id"], own["context_id"]]
            + [q for d in others.values() for q in (d["query_id"], d["context_id"])],
        )
        env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "KGMEM_CHROMA__PATH": str(quiet.chroma.path),
            "KGMEM_ANALYSIS__ENABLED": "false",
        }
        env.pop("KGMEM_NAMESPACE", None)
        yield own_ns, own, others, env, quiet
    finally:
        mem.close()
        for ns in [own_ns, *names]:
            delete_namespace(graph, None, ns)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _in_process(settings: Settings, driver, embedder) -> Callable[[], Client]:  # noqa: ANN001
    """The server ``kgmem mcp --ns`` builds (its namespace pinned from the settings), in this process."""
    server = build_server(settings, client_factory=lambda: KGMem(settings, driver=driver, embedder=embedder))
    return lambda: Client(server, read_timeout_seconds=300)


def _http_server(own_ns: str, env: dict[str, str], tmp_path: Path) -> tuple[subprocess.Popen[bytes], int, Path]:
    port = _free_port()
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    log_path = tmp_path / f"mcp-http-{port}.log"
    with log_path.open("w") as log:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "kgmem.cli",
                "mcp",
                "--ns",
                own_ns,
                "--transport",
                "http",
                "--port",
                str(port),
                "--token-file",
                str(token_file),
            ],
            env=env,
            cwd=str(ROOT),
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    deadline = time.monotonic() + 120
    while True:
        assert proc.poll() is None, log_path.read_text()
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return proc, port, log_path
        except OSError:
            assert time.monotonic() < deadline, "MCP HTTP server did not listen"
            time.sleep(0.3)


@pytest.mark.parametrize("transport", ["in-process", "http"])
def test_no_namespace_escape(transport: str, stack, driver, embedder, tmp_path: Path) -> None:  # noqa: ANN001
    own_ns, own, others, env, quiet = stack
    before = {ns: _snapshot(driver, ns) for ns in others}
    other_ids = set().union(*(ids for _, ids in before.values()))
    own_before, _ = _snapshot(driver, own_ns)
    tally = Tally(others, other_ids)
    proc = None
    if transport == "in-process":
        connect = _in_process(quiet.model_copy(update={"namespace": own_ns}), driver, embedder)
    else:
        proc, port, _ = _http_server(own_ns, env, tmp_path)
        url = f"http://127.0.0.1:{port}/mcp"
        headers = {"Authorization": f"Bearer {TOKEN}"}
        connect = lambda: Client(  # noqa: E731
            streamable_http_client(url, http_client=create_mcp_http_client(headers=headers)),
            read_timeout_seconds=300,
        )

    async def go() -> dict[str, Any]:
        async with connect() as client:
            return await _attack(client, own, others, tally)

    try:
        seen = asyncio.run(go())
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=60)
    after = {ns: _snapshot(driver, ns)[0] for ns in others}
    tally.escapes += [f"{ns!r} changed" for ns in others if after[ns] != before[ns][0]]
    print(
        f"\nMCP {transport}: {tally.attempts} attack calls ({len(seen) - 1} tools, {len(others)} look-alike "
        f"namespaces), {len(tally.escapes)} escapes"
    )
    assert tally.escapes == [], tally.escapes

    # Positive controls: the same calls on the server's own data read and write it, so the checks
    # above would have seen another namespace's data had it come through.
    assert any("markerOWN" in h["text"] for h in seen["search"]["hits"])
    assert "markerOWN" in json.dumps(seen["learnings_list"])
    assert any("deploy" in json.dumps(r) for r in seen["reports"])
    assert [f["description"] for f in seen["tool_result"]["fixes"]] == ["rerun the flaky stage markerOWN"]
    assert _snapshot(driver, own_ns)[0] != own_before
    for tool in ("search", "context"):
        hits = seen[tool]["hits"] if tool == "search" else seen[tool]["citations"]
        ids = [h["id"] for h in hits]
        records, _, _ = driver.execute_query("MATCH (n) WHERE n.id IN $ids RETURN DISTINCT n.ns AS ns", ids=ids)
        assert {r["ns"] for r in records} == {own_ns}, (tool, records)

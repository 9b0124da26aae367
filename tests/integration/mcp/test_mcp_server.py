"""The MCP server against the real stack, driven by the official SDK's own client:
in-process (every tool), over stdio (``kgmem mcp`` as a subprocess) and over streamable
HTTP on a loopback port."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from kgmem.config import Settings
from kgmem.mcp import build_server

mcp = pytest.importorskip("mcp")
from mcp import Client, StdioServerParameters  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
TOOLS = {
    "tool_result",
    "resolve",
    "correction",
    "turn",
    "end_session",
    "search",
    "context",
    "feedback",
    "learnings_list",
    "learnings_add",
    "learnings_history",
    "report",
    "forget",
}
REFUSED = "could not connect to server: Connection refused (10.0.0.5:5432)"


def _run(coro: Any) -> Any:
    return asyncio.run(coro)


async def _call(client: Client, tool_name: str, /, **args: Any) -> dict[str, Any]:
    result = await client.call_tool(tool_name, args)
    assert not result.is_error, (tool_name, result.content)
    return result.structured_content


async def _agent_loop(client: Client) -> dict[str, Any]:
    """What an agent does through MCP; returns what it saw."""
    tools = await client.list_tools()
    seen: dict[str, Any] = {"tools": {t.name: t.input_schema for t in tools.tools}}
    failed = await _call(client, "tool_result", tool="psql", params={"port": 5432}, error=REFUSED, session="m1")
    ok = await _call(client, "tool_result", tool="psql", params={"port": 6432}, session="m1")
    named = await _call(client, "resolve", error_id=failed["id"], fix="use the pgbouncer port 6432", session="m1")
    again = await _call(client, "tool_result", tool="psql", params={"port": 5432}, error=REFUSED, session="m2")
    await _call(client, "turn", session="m1", role="user", text="I prefer answers with code samples", ref="t1")
    await _call(client, "learnings_add", content="The staging database listens on pgbouncer port 6432")
    found = await _call(client, "search", query="staging database port", k=5)
    judged = await _call(
        client, "feedback", query_id=found["query_id"], used=[found["hits"][0]["id"]], outcome="success"
    )
    retried = await _call(
        client, "feedback", query_id=found["query_id"], used=[found["hits"][0]["id"]], outcome="success"
    )
    seen["feedback_counted"] = (judged["counted"], retried["counted"])
    ctx = await _call(client, "context", query="database refuses connections", max_tokens=300)
    # the session's context, and feedback attributed through the [n] citations of the answer
    sctx = await _call(client, "context", query="staging database port", session="m1", max_tokens=300)
    cited = await _call(
        client, "feedback", query_id=sctx["query_id"], response="Use port 6432 [1].", outcome="positive"
    )
    no_render = await client.call_tool("feedback", {"query_id": found["query_id"], "response": "[1]"})
    unknown_query = await client.call_tool("feedback", {"query_id": "f" * 32, "used": []})
    items = await _call(client, "learnings_list")
    added = next(i for i in items["items"] if "pgbouncer" in i["content"])
    seen["history"] = await _call(client, "learnings_history", id=added["id"])
    seen["history_id"] = added["id"]
    seen["long_ago"] = await _call(client, "search", query="staging database port", k=5, as_of="2000-01-01")
    seen["bad_as_of"] = await client.call_tool("search", {"query": "x", "as_of": "not a date"})
    rows = await _call(client, "report", name="top_errors")
    # error texts and answers that are JSON stay text (the SDK would decode them for a str-or-null argument)
    json_error = await _call(
        client, "tool_result", tool="api", error='{"error": "upstream timeout", "code": 504}', session="m3"
    )
    bad = await client.call_tool("resolve", {"error_id": "0" * 32, "fix": "x"})
    not_an_id = await client.call_tool("resolve", {"error_id": "psql refused", "fix": "x"})
    invalid = await client.call_tool("search", {"query": "x", "k": 0})
    # a retried report of one fix on one failure (its occurrence) counts once
    report = {"error_id": again["id"], "fix": "use the pgbouncer port 6432", "occurrence": again["occurrence"]}
    reported, re_reported = await _call(client, "resolve", **report), await _call(client, "resolve", **report)
    seen["resolve_counted"] = [(r["counted"], r["successes"]) for r in (reported, re_reported)]
    await _call(client, "end_session", session="m1")
    seen.update(
        failed=failed,
        ok=ok,
        named=named,
        again=again,
        found=found,
        ctx=ctx,
        items=items,
        rows=rows,
        bad=bad,
        invalid=invalid,
        sctx=sctx,
        cited=cited,
        no_render=no_render,
        unknown_query=unknown_query,
        not_an_id=not_an_id,
        json_error=json_error,
    )
    return seen


def _check(seen: dict[str, Any]) -> None:
    assert set(seen["tools"]) == TOOLS
    schema = seen["tools"]["tool_result"]
    assert schema["required"] == ["tool"] and {"params", "error", "session"} <= set(schema["properties"])
    assert seen["failed"]["ok"] is False and seen["failed"]["fixes"] == []
    assert seen["ok"]["ok"] is True and seen["ok"]["id"] == seen["failed"]["id"]
    assert seen["named"]["description"] == "use the pgbouncer port 6432" and seen["named"]["successes"] == 1
    [fix] = seen["again"]["fixes"]  # the next occurrence gets the one, named fix back
    assert fix["description"] == "use the pgbouncer port 6432"
    assert any("6432" in h["text"] for h in seen["found"]["hits"])
    assert seen["ctx"]["query_id"] and "[1]" in seen["ctx"]["text"]
    assert any("pgbouncer" in i["content"] for i in seen["items"]["items"])
    assert any(r.get("tool") == "psql" or "psql" in str(r) for r in seen["rows"]["rows"])
    assert seen["bad"].is_error and "ErrorNotFound" in seen["bad"].content[0].text
    # a text where an id belongs is named as such (not "tool: required when error is given as a message")
    text = seen["not_an_id"].content[0].text
    assert seen["not_an_id"].is_error and "is not an error id" in text and "tool:" not in text
    assert any("6432" in c["text"] for c in seen["sctx"]["citations"]) and seen["cited"]["recorded"] is True
    assert seen["no_render"].is_error and "not rendered by context" in seen["no_render"].content[0].text
    assert seen["json_error"]["ok"] is False and seen["json_error"]["id"]
    assert seen["unknown_query"].is_error and "UnknownQuery" in seen["unknown_query"].content[0].text
    assert seen["feedback_counted"] == (True, False)  # a retried feedback call counts once
    assert seen["resolve_counted"] == [(True, 2), (False, 2)]  # a retried resolve on one occurrence too
    assert seen["invalid"].is_error  # k=0 violates the schema (ge=1)
    # a knowledge item's history (no change: itself), and what was valid long before it was added
    assert [i["id"] for i in seen["history"]["items"]] == [seen["history_id"]]
    assert seen["history"]["items"][0]["valid_from"] and seen["history"]["items"][0]["valid_until"] is None
    assert not [h for h in seen["long_ago"]["hits"] if h["kind"] == "knowledge"]
    assert seen["bad_as_of"].is_error and "as_of" in seen["bad_as_of"].content[0].text


def test_every_tool_in_process(settings: Settings, mem) -> None:
    server = build_server(settings, client_factory=lambda: mem)

    async def go() -> dict[str, Any]:
        async with Client(server) as client:
            return await _agent_loop(client)

    _check(_run(go()))


def _env(settings: Settings, tmp_path: Path) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "KGMEM_NAMESPACE": settings.namespace,
        "KGMEM_CHROMA__PATH": str(tmp_path / "chroma-sub"),
    }


def test_stdio_transport(settings: Settings, tmp_path: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "kgmem.cli", "mcp"], env=_env(settings, tmp_path), cwd=str(ROOT)
    )

    async def go() -> dict[str, Any]:
        async with Client(params, read_timeout_seconds=300) as client:
            return await _agent_loop(client)

    _check(_run(go()))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_streamable_http_transport(settings: Settings, tmp_path: Path) -> None:
    port = _free_port()
    log = (tmp_path / "mcp-http.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "kgmem.cli", "mcp", "--transport", "http", "--port", str(port)],
        env=_env(settings, tmp_path),
        cwd=str(ROOT),
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 120
        while True:  # wait for the port (start-up is a Python import, not a model load)
            assert proc.poll() is None, (tmp_path / "mcp-http.log").read_text()
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "MCP HTTP server did not listen"
                time.sleep(0.3)

        async def go() -> dict[str, Any]:
            async with Client(f"http://127.0.0.1:{port}/mcp", read_timeout_seconds=300) as client:
                return await _agent_loop(client)

        _check(_run(go()))
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        log.close()

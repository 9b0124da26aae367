"""Bearer-token auth of ``kgmem mcp --transport http``: a server bound to every interface with a
token answers only requests that carry it (every request, not just the first of a session), and
a public bind without a token refuses to start. Raw HTTP (the SDK's httpx2) for the status codes,
the official SDK client for a whole session."""

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

mcp = pytest.importorskip("mcp")
import httpx2  # noqa: E402  (the SDK's HTTP client)
from mcp import Client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from mcp.shared._httpx_utils import create_mcp_http_client  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
TOKEN = "http-auth-test-token-abcdefghijklmnop"
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "auth-test", "version": "0"},
    },
}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _env(settings: Settings) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "KGMEM_NAMESPACE": settings.namespace}
    for key in ("KGMEM_MCP__TOKEN", "KGMEM_MCP__TOKEN_FILE"):
        env.pop(key, None)
    return env


def _mcp(*args: str, env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("w") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "kgmem.cli", "mcp", "--transport", "http", *args],
            env=env,
            cwd=str(ROOT),
            stdout=out,
            stderr=subprocess.STDOUT,
        )


def _wait_listening(proc: subprocess.Popen[bytes], port: int, log: Path) -> None:
    deadline = time.monotonic() + 120
    while True:
        assert proc.poll() is None, log.read_text()
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            assert time.monotonic() < deadline, "MCP HTTP server did not listen"
            time.sleep(0.3)


def test_public_bind_without_token_refuses_to_start(settings: Settings, tmp_path: Path) -> None:
    log = tmp_path / "refused.log"
    proc = _mcp("--host", "0.0.0.0", "--port", str(_free_port()), env=_env(settings), log=log)
    assert proc.wait(timeout=120) == 2  # click usage error: nothing listened
    assert "needs a bearer token" in log.read_text()


def test_token_required_on_every_request(settings: Settings, tmp_path: Path) -> None:
    port = _free_port()
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    log = tmp_path / "http.log"
    proc = _mcp("--host", "0.0.0.0", "--port", str(port), "--token-file", str(token_file), env=_env(settings), log=log)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        _wait_listening(proc, port, log)
        assert "bearer token required" in log.read_text()
        with httpx2.Client(timeout=60) as http:
            for auth in (
                None,
                "Bearer",
                f"Bearer {TOKEN[:-1]}",
                f"Bearer {TOKEN}x",
                f"Basic {TOKEN}",
                f"Bearer {TOKEN.upper()}",
            ):
                headers = HEADERS if auth is None else {**HEADERS, "Authorization": auth}
                refused = http.post(url, json=INIT, headers=headers)
                assert refused.status_code == 401, (auth, refused.status_code, refused.text)
                assert refused.headers["www-authenticate"].startswith("Bearer")
            ok = http.post(url, json=INIT, headers={**HEADERS, "Authorization": f"Bearer {TOKEN}"})
            assert ok.status_code == 200, ok.text
            session = ok.headers["mcp-session-id"]
            # A session opened with the token is no ticket: each request is checked.
            call = {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "learnings_list", "arguments": {}},
            }
            stolen = http.post(url, json=call, headers={**HEADERS, "mcp-session-id": session})
            assert stolen.status_code == 401

        async def with_sdk(headers: dict[str, str]) -> Any:
            async with Client(
                streamable_http_client(url, http_client=create_mcp_http_client(headers=headers)),
                read_timeout_seconds=120,
            ) as client:
                return {t.name for t in (await client.list_tools()).tools}

        assert "search" in asyncio.run(with_sdk({"Authorization": f"Bearer {TOKEN}"}))
        with pytest.raises(Exception) as refused_sdk:  # the SDK surfaces the 401 as an MCPError in a group
            asyncio.run(with_sdk({}))
        assert "MCPError" in repr(refused_sdk.value)
    finally:
        proc.terminate()
        proc.wait(timeout=60)

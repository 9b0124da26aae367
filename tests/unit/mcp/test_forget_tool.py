"""The forget tool: pinned to the server's namespace like every tool; ``everything`` is an argument
only on a server started with ``--allow-forget-everything``."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from kgmem.config import load_settings
from kgmem.mcp import build_server

mcp = pytest.importorskip("mcp")
from mcp import Client  # noqa: E402


class FakeClient:
    """Records the forget call the tool makes."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def forget(self, **kwargs: Any) -> Any:
        from kgmem.forget import ForgetResult

        self.calls.append(kwargs)
        return ForgetResult("session", "abc", bool(kwargs.get("dry_run")), {"graph": {"Message": 2}})

    def close(self) -> None:
        pass


def _forget_props(allow: bool) -> dict[str, Any]:
    settings = load_settings(namespace="forget-tool", forget={"mcp_everything": allow})
    server = build_server(settings, client_factory=FakeClient)

    async def go() -> dict[str, Any]:
        async with Client(server) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            return tools["forget"].input_schema["properties"]

    return asyncio.run(go())


def test_everything_is_offered_only_when_the_server_allows_it():
    assert "everything" not in _forget_props(False)
    assert "everything" in _forget_props(True)
    assert {"id", "session", "entity", "dry_run"} <= set(_forget_props(False))
    assert "ns" not in _forget_props(True) and "by" not in _forget_props(True)


def test_the_tool_forgets_in_the_servers_namespace_and_names_itself():
    fake = FakeClient()
    server = build_server(load_settings(namespace="pinned"), client_factory=lambda: fake)

    async def go() -> Any:
        async with Client(server) as client:
            return await client.call_tool("forget", {"session": "s1", "dry_run": True})

    result = asyncio.run(go())
    assert not result.is_error
    assert fake.calls == [{"id": None, "session": "s1", "entity": None, "dry_run": True, "by": "mcp", "ns": "pinned"}]


def test_everything_is_refused_as_an_unknown_argument_by_default():
    server = build_server(load_settings(namespace="pinned"), client_factory=FakeClient)

    async def go() -> Any:
        async with Client(server) as client:
            return await client.call_tool("forget", {"everything": True})

    result = asyncio.run(go())
    assert result.is_error and "everything" in str(result.content)

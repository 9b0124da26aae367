"""The MCP tools' choices and limits are the client's: compared with the registries they come from
(kinds, retrieval presets, feedback levels, knowledge types, reports) and the client's own bounds."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from kgmem.analysis.schema import KNOWLEDGE_TYPES, MAX_CONTENT_CHARS
from kgmem.config import load_settings
from kgmem.errors import ValidationError
from kgmem.kinds import KINDS
from kgmem.mcp import build_server
from kgmem.reports.library import list_reports
from kgmem.retrieval.config import PRESETS
from kgmem.retrieval.feedback import LEVELS
from kgmem.retrieval.scope import MAX_K, Scope

mcp = pytest.importorskip("mcp")
from mcp import Client  # noqa: E402


def _no_client() -> Any:
    raise AssertionError("listing tools must not build a client")


@pytest.fixture(scope="module")
def schemas() -> dict[str, dict[str, Any]]:
    server = build_server(load_settings(namespace="schema-test"), client_factory=_no_client)

    async def go() -> dict[str, dict[str, Any]]:
        async with Client(server) as client:
            return {t.name: t.input_schema["properties"] for t in (await client.list_tools()).tools}

    return asyncio.run(go())


def _enum(prop: dict[str, Any]) -> list[Any]:
    """The enum of a property, through ``anyOf`` (optional) and ``items`` (lists)."""
    if "enum" in prop:
        return prop["enum"]
    for option in prop.get("anyOf", []) + ([prop["items"]] if "items" in prop else []):
        found = _enum(option)
        if found:
            return found
    return []


def test_kinds_and_presets_are_the_registries(schemas: dict[str, dict[str, Any]]) -> None:
    for tool in ("search", "context"):
        assert _enum(schemas[tool]["kinds"]) == [k.name for k in KINDS]
        assert _enum(schemas[tool]["preset"]) == list(PRESETS)


def test_k_limit_is_the_clients(schemas: dict[str, dict[str, Any]]) -> None:
    for tool in ("search", "context"):
        assert (schemas[tool]["k"]["minimum"], schemas[tool]["k"]["maximum"]) == (1, MAX_K)
    Scope.build("ns", k=MAX_K)  # the client takes the MCP maximum ...
    with pytest.raises(ValidationError):
        Scope.build("ns", k=MAX_K + 1)  # ... and nothing above it


def test_outcomes_types_reports_are_the_registries(schemas: dict[str, dict[str, Any]]) -> None:
    assert _enum(schemas["feedback"]["outcome"]) == list(LEVELS)
    assert _enum(schemas["learnings_add"]["type"]) == list(KNOWLEDGE_TYPES)
    assert _enum(schemas["learnings_list"]["type"]) == list(KNOWLEDGE_TYPES)
    assert schemas["learnings_add"]["content"]["maxLength"] == MAX_CONTENT_CHARS
    assert _enum(schemas["report"]["name"]) == [spec.name for spec in list_reports()]


def test_no_tool_takes_a_namespace(schemas: dict[str, dict[str, Any]]) -> None:
    for tool, props in schemas.items():
        assert not {"ns", "namespace"} & set(props), tool


def test_feedback_takes_a_response_and_context_a_session(schemas: dict[str, dict[str, Any]]) -> None:
    assert "response" in schemas["feedback"]
    assert "session" in schemas["context"]


def test_json_looking_text_reaches_the_tool_as_text() -> None:
    """The SDK JSON-decodes str-or-null arguments that look like JSON; kgmem's free-text ones opt out."""
    seen: dict[str, Any] = {}

    class Recorder:
        namespace = "schema-test"

        def tool_result(self, tool: str, params: Any, **kw: Any) -> dict[str, Any]:
            seen.update(kw)
            return {"ok": False}

        def close(self) -> None:
            pass

    server = build_server(load_settings(namespace="schema-test"), client_factory=Recorder)

    async def go() -> Any:
        async with Client(server) as client:
            return await client.call_tool("tool_result", {"tool": "api", "error": '{"code": 504}', "session": "[1]"})

    result = asyncio.run(go())
    assert not result.is_error, result.content
    assert seen == {"error": '{"code": 504}', "session": "[1]", "ns": "schema-test"}

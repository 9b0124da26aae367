"""The API declared once (kgmem/api.py): KGMem, AsyncKGMem and the MCP tools are checked against it —
every declared operation is a method of each client that exposes it, with the declared parameter
names, kinds and defaults (a coroutine function in the async client); every public method is
declared; the MCP tools are exactly the declared ones, with the declared limits and literals."""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

import pytest

from kgmem import api
from kgmem.aio import AsyncKGMem
from kgmem.analysis.schema import KNOWLEDGE_TYPES, MAX_CONTENT_CHARS
from kgmem.client import KGMem
from kgmem.config import load_settings
from kgmem.errors import ValidationError
from kgmem.kinds import KINDS
from kgmem.reports.library import list_reports
from kgmem.retrieval.config import PRESETS
from kgmem.retrieval.context import MIN_TOKENS
from kgmem.retrieval.feedback import LEVELS
from kgmem.retrieval.scope import MAX_K, Scope

#: Lifecycle methods: not operations.
LIFECYCLE = {KGMem: {"close"}, AsyncKGMem: {"open", "aclose"}}
KINDS_OF = {
    api.Pass.POSITIONAL: inspect.Parameter.POSITIONAL_OR_KEYWORD,
    api.Pass.KEYWORD: inspect.Parameter.KEYWORD_ONLY,
}
CLIENTS = [(KGMem, api.SYNC), (AsyncKGMem, api.ASYNC)]


def _public_methods(cls: type) -> set[str]:
    return {
        name for name, value in vars(cls).items() if not name.startswith("_") and inspect.isfunction(value)
    } - LIFECYCLE[cls]


def _mismatches(op: api.Operation, method: Any) -> list[str]:
    """How ``method``'s signature differs from the declaration of ``op`` (empty: it agrees)."""
    params = [p for p in inspect.signature(method).parameters.values() if p.name != "self"]
    var_keyword = next((p.name for p in params if p.kind is p.VAR_KEYWORD), None)
    got = [(p.name, p.kind, p.default) for p in params if p.kind is not p.VAR_KEYWORD]
    want = [(p.name, KINDS_OF[p.kind], p.default) for p in op.params if p.kind in KINDS_OF]
    problems = [] if got == want else [f"parameters {got} != declared {want}"]
    spread = [p.name for p in op.params if p.kind is api.Pass.SPREAD]
    wanted_var = spread[0] if spread else op.forwards
    if var_keyword != wanted_var:
        problems.append(f"**{var_keyword} != declared **{wanted_var}")
    return problems


@pytest.mark.parametrize(("client", "surface"), CLIENTS, ids=["KGMem", "AsyncKGMem"])
def test_every_declared_operation_is_a_method_as_declared(client: type, surface: str) -> None:
    problems = {}
    for op in api.exposed_on(surface):
        method = getattr(client, op.name, None)
        if method is None:
            problems[op.name] = ["missing"]
            continue
        found = _mismatches(op, method)
        if surface == api.ASYNC and not inspect.iscoroutinefunction(method):
            found.append("not a coroutine function")
        if found:
            problems[op.name] = found
    assert problems == {}, f"{client.__name__} disagrees with kgmem/api.py: {problems}"


@pytest.mark.parametrize(("client", "surface"), CLIENTS, ids=["KGMem", "AsyncKGMem"])
def test_every_public_method_is_declared(client: type, surface: str) -> None:
    declared = {op.name for op in api.exposed_on(surface)}
    assert _public_methods(client) - declared == set(), f"declare these in kgmem/api.py ({surface})"


def test_the_check_catches_a_disagreeing_method() -> None:
    op = api.operation("search")

    def search(self, query: str, k: int = 20, *, ns: str | None = None) -> None: ...  # noqa: ANN001

    problems = " ".join(_mismatches(op, search))
    assert "20" in problems and "session" in problems


def test_literals_and_limits_come_from_the_registries() -> None:
    assert api.operation("search").param("kinds").choices == tuple(k.name for k in KINDS)
    assert api.operation("context").param("preset").choices == tuple(PRESETS)
    assert api.operation("feedback").param("outcome").choices == tuple(LEVELS)
    assert api.operation("add_knowledge").param("type").choices == tuple(KNOWLEDGE_TYPES)
    assert api.operation("report").param("name").choices == tuple(s.name for s in list_reports())
    assert api.operation("add_knowledge").param("content").max_length == MAX_CONTENT_CHARS
    assert api.operation("context").param("max_tokens").ge == MIN_TOKENS
    for name in ("search", "context"):
        k = api.operation(name).param("k")
        assert (k.ge, k.le) == (1, MAX_K)
    Scope.build("ns", k=MAX_K)  # the engines take the declared maximum ...
    with pytest.raises(ValidationError):
        Scope.build("ns", k=MAX_K + 1)  # ... and nothing above it


def test_no_mcp_argument_names_a_namespace() -> None:
    for op in api.exposed_on(api.MCP):
        assert not {"ns", "namespace"} & {p.wire_name for p in op.mcp_params}, op.name


# -- the MCP tools ------------------------------------------------------------------------------
mcp = pytest.importorskip("mcp")


@pytest.fixture(scope="module")
def tools() -> dict[str, dict[str, Any]]:
    from mcp import Client

    from kgmem.mcp import build_server

    def no_client() -> Any:
        raise AssertionError("listing tools must not build a client")

    server = build_server(load_settings(namespace="api-test"), client_factory=no_client)

    async def go() -> dict[str, dict[str, Any]]:
        async with Client(server) as client:
            return {t.name: t.input_schema for t in (await client.list_tools()).tools}

    return asyncio.run(go())


def _find(prop: dict[str, Any], key: str) -> Any:
    """``key`` in a property schema, through ``anyOf`` (optional, unions) and ``items`` (lists)."""
    if key in prop:
        return prop[key]
    for option in prop.get("anyOf", []) + ([prop["items"]] if "items" in prop else []):
        found = _find(option, key)
        if found is not None:
            return found
    return None


def test_the_mcp_tools_are_the_declared_operations(tools: dict[str, dict[str, Any]]) -> None:
    assert set(tools) == {op.tool_name for op in api.exposed_on(api.MCP)}
    for op in api.exposed_on(api.MCP):
        schema = tools[op.tool_name]
        assert list(schema["properties"]) == [p.wire_name for p in op.mcp_params], op.name
        assert set(schema.get("required", [])) == {p.wire_name for p in op.mcp_params if p.required}, op.name


def test_mcp_limits_defaults_and_literals_are_the_declarations(tools: dict[str, dict[str, Any]]) -> None:
    for op in api.exposed_on(api.MCP):
        for p in op.mcp_params:
            prop = tools[op.tool_name]["properties"][p.wire_name]
            where = f"{op.tool_name}.{p.wire_name}"
            assert _find(prop, "enum") == (list(p.choices) if p.choices else None), where
            assert _find(prop, "minimum") == p.ge and _find(prop, "maximum") == p.le, where
            assert _find(prop, "minLength") == p.min_length and _find(prop, "maxLength") == p.max_length, where
            if not p.required:
                default = list(p.default) if isinstance(p.default, tuple) else p.default
                assert prop.get("default") == default, where

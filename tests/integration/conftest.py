"""Fixtures shared by the integration tests: a scripted Anthropic Messages API.

The Anthropic API is unreachable here, so the REAL ``anthropic`` SDK is used with its
HTTP transport mocked: the SDK (2.x) is built on ``httpx2``, whose ``MockTransport`` we
hand it through ``http_client`` — everything above the socket (request building, status
→ exception mapping, response parsing) is the SDK's own code.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from typing import Any

import pytest

try:  # the SDK's HTTP library: httpx2 for anthropic>=2, httpx before
    import httpx2 as http
except ImportError:  # pragma: no cover
    import httpx as http  # type: ignore[no-redef]

from kgmem.analysis import AnthropicGenerator
from kgmem.config import Settings


class ScriptedAnthropic:
    """A Messages API double at the HTTP level. Steps: ("text", body) | ("status", code) | ("timeout",)."""

    def __init__(self) -> None:
        self.script: deque[tuple[Any, ...]] = deque()
        self.requests: list[dict[str, Any]] = []
        self.gate: threading.Event | None = None
        self.entered = threading.Event()

    def then(self, *steps: tuple[Any, ...]) -> ScriptedAnthropic:
        self.script.extend(steps)
        return self

    def items(self, *items: dict[str, Any]) -> tuple[str, str]:
        return ("text", json.dumps(list(items)))

    def handler(self, request: Any) -> Any:
        body = json.loads(request.content)
        self.requests.append(body)
        self.entered.set()
        if self.gate is not None:
            self.gate.wait(30)
        step = self.script.popleft() if self.script else ("text", "[]")
        if step[0] == "timeout":
            raise http.ReadTimeout("scripted read timeout", request=request)
        if step[0] == "status":
            kind = {429: "rate_limit_error", 529: "overloaded_error"}.get(step[1], "api_error")
            return http.Response(
                step[1],
                headers={"retry-after": "0"},
                json={"type": "error", "error": {"type": kind, "message": "scripted"}},
            )
        return http.Response(
            200,
            json={
                "id": f"msg_{len(self.requests)}",
                "type": "message",
                "role": "assistant",
                "model": body["model"],
                "content": [{"type": "text", "text": step[1]}],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": 100 + len(self.requests), "output_tokens": 20},
            },
        )

    def prompts(self) -> list[str]:
        return [r["messages"][0]["content"] for r in self.requests]

    def generator(self, settings: Settings) -> AnthropicGenerator:
        client = http.Client(transport=http.MockTransport(self.handler))
        return AnthropicGenerator(settings.anthropic, http_client=client)


@pytest.fixture
def scripted() -> ScriptedAnthropic:
    return ScriptedAnthropic()


# -- both clients: the same feature tests for KGMem and AsyncKGMem ------------------------------------
class SyncAdapter:
    """An AsyncKGMem driven from sync test code, so a test body is written once for both clients.

    The client lives on an event loop running in its own thread (as in an asyncio application):
    each coroutine method is submitted to it and waited for, and background work — write-behind,
    conversation analysis — keeps running between calls. Attributes holding async objects (the
    vector store) are wrapped the same way."""

    def __init__(self, client: Any, loop: Any = None, owner: bool = True) -> None:
        import asyncio

        self.aio = client
        self._owner = owner
        self.loop = loop or asyncio.new_event_loop()
        if owner:
            self._thread = threading.Thread(target=self.loop.run_forever, name="test-loop", daemon=True)
            self._thread.start()
            self._await(client.open())

    def _await(self, coro: Any) -> Any:
        import asyncio

        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout=300)

    def __getattr__(self, name: str) -> Any:
        import inspect

        attr = getattr(self.aio, name)
        if not callable(attr):
            has_coroutines = any(inspect.iscoroutinefunction(getattr(type(attr), n, None)) for n in dir(type(attr)))
            return SyncAdapter(attr, self.loop, owner=False) if has_coroutines else attr

        def call(*args: Any, **kwargs: Any) -> Any:
            out = attr(*args, **kwargs)
            return self._await(out) if inspect.isawaitable(out) else out

        return call

    def close(self) -> None:
        if not self._owner or self.loop.is_closed():
            return
        self._await(self.aio.aclose())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)
        self.loop.close()


def open_client(kind: str, settings: Settings, driver: Any, embedder: Any, **kwargs: Any) -> Any:
    """A ``KGMem`` (``kind="sync"``, on the session's driver) or an ``AsyncKGMem`` behind a
    :class:`SyncAdapter` (``"async"``, its own async driver), sharing the session's model."""
    from kgmem import AsyncKGMem, KGMem

    if kind == "sync":
        return KGMem(settings, driver=driver, embedder=embedder, **kwargs)
    return SyncAdapter(AsyncKGMem(settings, embedder=embedder, **kwargs))


@pytest.fixture
def open_client_of() -> Any:
    """:func:`open_client`, for tests that build a client of their own."""
    return open_client


@pytest.fixture(params=["sync", "async"])
def client_kind(request: pytest.FixtureRequest) -> str:
    """Which client a both-clients test runs with."""
    return request.param


@pytest.fixture
def client(client_kind: str, settings: Settings, driver, embedder, graph):
    """The client under test — ``KGMem`` or ``AsyncKGMem`` — on the test's namespace and Chroma directory."""
    c = open_client(client_kind, settings, driver, embedder)
    yield c
    c.close()

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

    def then(self, *steps: tuple[Any, ...]) -> "ScriptedAnthropic":
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
            return http.Response(step[1], headers={"retry-after": "0"},
                                 json={"type": "error", "error": {"type": kind, "message": "scripted"}})
        return http.Response(200, json={
            "id": f"msg_{len(self.requests)}", "type": "message", "role": "assistant",
            "model": body["model"], "content": [{"type": "text", "text": step[1]}],
            "stop_reason": "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": 100 + len(self.requests), "output_tokens": 20},
        })

    def prompts(self) -> list[str]:
        return [r["messages"][0]["content"] for r in self.requests]

    def generator(self, settings: Settings) -> AnthropicGenerator:
        client = http.Client(transport=http.MockTransport(self.handler))
        return AnthropicGenerator(settings.anthropic, http_client=client)


@pytest.fixture
def scripted() -> ScriptedAnthropic:
    return ScriptedAnthropic()

"""A scripted HTTP server for the LLM SDKs: each request gets the next scripted step; requests are kept.

The real ``anthropic`` and ``openai`` SDKs run over it through the HTTP library's ``MockTransport`` (no network).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

try:  # the SDKs' HTTP library: httpx2 for anthropic>=2 (openai takes either), httpx before
    import httpx2 as httpx
except ImportError:  # pragma: no cover
    import httpx  # type: ignore[no-redef]

Step = tuple[Any, ...]


class Script:
    """Steps: ``("text", s)`` an answer, ``("refusal", s)`` a refusal, ``("status", code, headers)`` an
    error status, ``("timeout",)`` a read timeout. ``answer`` formats a provider's success body."""

    def __init__(self, answer: Callable[[dict[str, Any], Step, int], httpx.Response]) -> None:
        self.answer = answer
        self.steps: list[Step] = []
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []

    def then(self, *steps: Step) -> Script:
        self.steps.extend(steps)
        return self

    def handler(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        self.requests.append(body)
        self.paths.append(request.url.path)
        step = self.steps.pop(0)
        if step[0] == "timeout":
            raise httpx.ReadTimeout("scripted read timeout", request=request)
        if step[0] == "status":
            headers = step[2] if len(step) > 2 else {}
            return httpx.Response(step[1], headers=headers, json={"error": {"type": "scripted", "message": "scripted"}})
        return self.answer(body, step, len(self.requests))

    def client(self) -> httpx.Client:
        return httpx.Client(transport=httpx.MockTransport(self.handler))


def anthropic_answer(body: dict[str, Any], step: Step, n: int) -> httpx.Response:
    return httpx.Response(
        200,
        json={
            "id": f"msg_{n}",
            "type": "message",
            "role": "assistant",
            "model": body["model"],
            "content": [{"type": "text", "text": step[1]}],
            "stop_reason": "refusal" if step[0] == "refusal" else "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 100 + n, "output_tokens": 20},
        },
    )


def openai_answer(body: dict[str, Any], step: Step, n: int) -> httpx.Response:
    refused = step[0] == "refusal"
    message = {"role": "assistant", "content": None if refused else step[1], "refusal": step[1] if refused else None}
    return httpx.Response(
        200,
        json={
            "id": f"chatcmpl-{n}",
            "object": "chat.completion",
            "created": 0,
            "model": body["model"],
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 100 + n, "completion_tokens": 20, "total_tokens": 120 + n},
        },
    )


@pytest.fixture
def anthropic_script() -> Script:
    return Script(anthropic_answer)


@pytest.fixture
def openai_script() -> Script:
    return Script(openai_answer)

"""Conversation analysis with an OpenAI-compatible endpoint (a local Ollama, vLLM, llama.cpp, LM Studio
or OpenAI) through the REAL openai SDK over a mocked HTTP transport, on the real stack: the JSON
envelope unwrapped into stored items, a refusal and a malformed answer counted (never raised), and the
usage labelled with the provider."""

from __future__ import annotations

import json
from typing import Any

from kgmem.llm import LLMConfig, OpenAICompatGenerator

try:  # the SDKs' HTTP library: httpx2 for the current SDKs (openai takes either), httpx before
    import httpx2 as http
except ImportError:  # pragma: no cover
    import httpx as http  # type: ignore[no-redef]

A = {"type": "fact", "content": "The build server is named Orion", "confidence": 0.9}
B = {"type": "preference", "content": "The user prefers short commit subjects", "confidence": 0.85}


class LocalServer:
    """Chat completions at the HTTP level. Steps: ("answer", content) | ("refusal", text)."""

    def __init__(self) -> None:
        self.steps: list[tuple[str, str]] = []
        self.requests: list[dict[str, Any]] = []

    def handler(self, request: Any) -> Any:
        body = json.loads(request.content)
        self.requests.append(body)
        kind, text = self.steps.pop(0) if self.steps else ("answer", '{"answer": []}')
        message = {"role": "assistant", "content": None if kind == "refusal" else text}
        if kind == "refusal":
            message["refusal"] = text
        return http.Response(
            200,
            json={
                "id": f"chatcmpl-{len(self.requests)}",
                "object": "chat.completion",
                "created": 0,
                "model": body["model"],
                "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 500, "completion_tokens": 30, "total_tokens": 530},
            },
        )

    def generator(self) -> OpenAICompatGenerator:
        config = LLMConfig(provider="openai", model="qwen2.5:7b", base_url="http://localhost:11434/v1", max_retries=0)
        return OpenAICompatGenerator(config, http_client=http.Client(transport=http.MockTransport(self.handler)))


def talk(mem: Any, session: str, n: int = 5) -> None:
    for i in range(n):
        mem.turn(session=session, role="user" if i % 2 == 0 else "assistant", text=f"{session} turn {i}: words")
    mem.end_session(session)
    assert mem.wait_for_analysis(60)


def test_a_local_model_analyses_a_conversation(make_client, asettings) -> None:
    server = LocalServer()
    mem = make_client(generator=server.generator())
    assert mem.analysis_stats()["extractor"] == "openai:qwen2.5:7b"

    server.steps = [("answer", json.dumps({"answer": [A, B]})), ("answer", '{"answer": [{"type": ')]
    talk(mem, "s1")
    stored = {i["content"]: i for i in mem.learnings()}
    assert stored[A["content"]]["source"] == "llm" and B["content"] in stored
    request = server.requests[0]
    assert request["response_format"]["type"] == "json_schema" and request["model"] == "qwen2.5:7b"
    assert "[user] s1 turn 0: words" in request["messages"][-1]["content"]
    s = mem.analysis_stats()
    assert (s["inserted"], s["malformed_outputs"]) == (2, 1)

    server.steps = [("refusal", "I can't help with that.")]
    talk(mem, "s2", n=1)  # one window at session end, too short for the session learner
    s = mem.analysis_stats()
    assert s["analysis_failed"] == 1
    assert s["usage"] == {
        "provider": "openai",
        "model": "qwen2.5:7b",
        "calls": 3,
        "failures": 1,
        "retries": 0,
        "input_tokens": 1500,
        "output_tokens": 90,
    }
    assert len(server.requests) == 3
    mem.close()

"""The OpenAI-compatible generator's request (JSON modes, messages, key) and its answer's envelope."""

from __future__ import annotations

import json

import pytest
from pydantic import SecretStr

from kgmem.errors import ConfigError
from kgmem.llm import LLMConfig, OpenAICompatGenerator, Refusal
from kgmem.llm.openai_compat import ENVELOPE_INSTRUCTION, unwrap
from tests.unit.llm.conftest import Script, httpx


def make(script: Script, **fields: object) -> OpenAICompatGenerator:
    config = LLMConfig(**{"provider": "openai", "model": "llama3.1:8b", **fields})  # type: ignore[arg-type]
    return OpenAICompatGenerator(config, http_client=script.client())


def test_the_default_asks_for_a_json_schema_envelope(openai_script: Script) -> None:
    gen = make(openai_script.then(("text", '{"answer": {"same": [2]}}')), base_url="http://localhost:11434/v1")
    assert json.loads(gen.generate("which?", system="Answer with JSON only.")) == {"same": [2]}
    body = openai_script.requests[0]
    assert openai_script.paths == ["/v1/chat/completions"]
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"]["required"] == ["answer"]
    assert body["messages"] == [
        {"role": "system", "content": f"Answer with JSON only.\n\n{ENVELOPE_INSTRUCTION}"},
        {"role": "user", "content": "which?"},
    ]
    assert body["max_tokens"] == 2048 and body["model"] == "llama3.1:8b"


def test_json_object_mode_for_servers_without_json_schema(openai_script: Script) -> None:
    gen = make(openai_script.then(("text", '{"answer": [1, 2]}')), json_output="object")
    assert gen.generate("p") == "[1, 2]"
    body = openai_script.requests[0]
    assert body["response_format"] == {"type": "json_object"}
    assert body["messages"][0] == {"role": "system", "content": ENVELOPE_INSTRUCTION}  # says "JSON", as required


def test_off_sends_no_response_format_and_returns_the_text_as_is(openai_script: Script) -> None:
    gen = make(openai_script.then(("text", '{"answer": [1]}')), json_output="off")
    assert gen.generate("p", system="s") == '{"answer": [1]}'
    body = openai_script.requests[0]
    assert "response_format" not in body and body["messages"][0] == {"role": "system", "content": "s"}


def test_the_key_is_sent_as_a_bearer_token_and_a_local_server_needs_none(openai_script: Script) -> None:
    seen: list[str] = []
    handler = openai_script.handler

    def record(request):  # type: ignore[no-untyped-def]
        seen.append(request.headers["authorization"])
        return handler(request)

    openai_script.handler = record  # type: ignore[method-assign]
    openai_script.then(("text", '{"answer": []}'), ("text", '{"answer": []}'))
    make(openai_script, api_key=SecretStr("sk-test")).generate("p")
    make(openai_script, base_url="http://127.0.0.1:8080/v1").generate("p")
    assert seen == ["Bearer sk-test", "Bearer not-needed"]


def test_a_content_filter_stop_is_a_refusal(openai_script: Script) -> None:
    def filtered(body, step, n):  # type: ignore[no-untyped-def]
        choice = {"index": 0, "message": {"role": "assistant", "content": ""}, "finish_reason": "content_filter"}
        body = {"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": [choice]}
        return httpx.Response(200, json=body)

    openai_script.answer = filtered
    gen = make(openai_script.then(("text", "")))
    with pytest.raises(Refusal, match="content filter"):
        gen.generate("p")
    assert gen.usage.failures == 1 and gen.usage.input_tokens == 0  # a server that reports no usage counts none


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"answer": [{"a": 1}]}', '[{"a": 1}]'),
        ('{"answer": "é"}', '"é"'),
        ('{"items": []}', '{"items": []}'),  # no envelope: passed on, the caller's parser decides
        ('{"answer": [], "extra": 1}', '{"answer": [], "extra": 1}'),
        ("not json", "not json"),
        ("", ""),
    ],
)
def test_unwrap(text: str, expected: str) -> None:
    assert unwrap(text) == expected


def test_an_unknown_json_output_is_a_config_error(openai_script: Script) -> None:
    with pytest.raises(ConfigError, match="llm.json_output"):
        make(openai_script, json_output="xml")

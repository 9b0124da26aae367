"""Both providers through their real SDKs over a scripted transport: answers, malformed JSON, a refusal,
timeouts, 429 with retry-after, 5xx, a request no retry can fix, and the usage counted."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kgmem.analysis.schema import parse_items
from kgmem.errors import GeneratorError
from kgmem.llm import AnthropicGenerator, LLMConfig, OpenAICompatGenerator, Refusal, RetryingGenerator
from tests.unit.llm.conftest import Script, anthropic_answer, openai_answer

ITEMS = [{"type": "fact", "content": "The staging database runs on port 5432", "confidence": 0.9}]


class Provider:
    """How one provider is scripted and built, and what its answer text looks like on the wire."""

    def __init__(self, name: str) -> None:
        self.name = name

    def script(self) -> Script:
        return Script(anthropic_answer if self.name == "anthropic" else openai_answer)

    def generator(self, script: Script, **overrides: Any) -> RetryingGenerator:
        fields: dict[str, Any] = {
            "provider": self.name,
            "model": "m-1",
            "retry_initial_wait_s": 0.5,
            "retry_max_wait_s": 10.0,
            "max_retries": 2,
        }
        fields.update(overrides)
        if self.name == "anthropic":
            from pydantic import SecretStr

            gen: RetryingGenerator = AnthropicGenerator(
                LLMConfig(api_key=SecretStr("k"), **fields), http_client=script.client()
            )
        else:
            gen = OpenAICompatGenerator(LLMConfig(**fields), http_client=script.client())
        gen.slept = []  # type: ignore[attr-defined]
        gen.sleep = gen.slept.append  # type: ignore[attr-defined,method-assign,assignment]
        return gen

    def wire(self, payload: Any) -> str:
        """What a model answering ``payload`` sends (OpenAI: inside the JSON envelope)."""
        return json.dumps(payload if self.name == "anthropic" else {"answer": payload})


@pytest.fixture(params=["anthropic", "openai"])
def provider(request: pytest.FixtureRequest) -> Provider:
    return Provider(request.param)


def test_a_valid_answer_is_returned_as_the_json_asked_for_and_counted(provider: Provider) -> None:
    script = provider.script().then(("text", provider.wire(ITEMS)))
    gen = provider.generator(script)
    text = gen.generate("the conversation", system="extract knowledge")
    assert parse_items(text).items[0].content == ITEMS[0]["content"]
    assert gen.usage.as_dict() == {
        "provider": provider.name,
        "model": "m-1",
        "calls": 1,
        "failures": 0,
        "retries": 0,
        "input_tokens": 101,
        "output_tokens": 20,
    }
    assert gen.name == f"{provider.name}:m-1"
    assert len(script.requests) == 1 and script.requests[0]["model"] == "m-1"


def test_malformed_json_reaches_the_parser_which_reports_it(provider: Provider) -> None:
    script = provider.script().then(("text", '[{"type": "fact", "content": '))
    gen = provider.generator(script)
    result = parse_items(gen.generate("p"))
    assert result.malformed and not result.items
    assert gen.usage.calls == 1 and gen.usage.failures == 0  # the call itself was answered


def test_a_refusal_is_a_generator_error_and_not_retried(provider: Provider) -> None:
    script = provider.script().then(("refusal", "I can't help with that."))
    gen = provider.generator(script)
    with pytest.raises(Refusal, match="refused"):
        gen.generate("p")
    assert len(script.requests) == 1
    assert (gen.usage.calls, gen.usage.failures, gen.usage.retries) == (1, 1, 0)
    assert gen.usage.input_tokens == 101  # the provider billed it


def test_timeouts_are_retried_until_the_attempts_run_out(provider: Provider) -> None:
    script = provider.script().then(("timeout",), ("timeout",), ("timeout",))
    gen = provider.generator(script)
    with pytest.raises(GeneratorError, match="gave up after 3 attempts"):
        gen.generate("p")
    assert len(script.requests) == 3
    assert (gen.usage.calls, gen.usage.failures, gen.usage.retries) == (0, 1, 2)
    assert gen.slept == [0.5, 1.0]  # type: ignore[attr-defined]  # exponential backoff


def test_a_timeout_then_an_answer_succeeds(provider: Provider) -> None:
    script = provider.script().then(("timeout",), ("text", provider.wire([])))
    gen = provider.generator(script)
    assert json.loads(gen.generate("p")) == []
    assert (gen.usage.calls, gen.usage.failures, gen.usage.retries) == (1, 0, 1)


def test_a_429_waits_as_long_as_retry_after_asks(provider: Provider) -> None:
    script = provider.script().then(("status", 429, {"retry-after": "7"}), ("text", provider.wire(ITEMS)))
    gen = provider.generator(script)
    assert parse_items(gen.generate("p")).items
    assert gen.slept == [7.0]  # type: ignore[attr-defined]  # not the 0.5 s backoff
    assert (gen.usage.calls, gen.usage.retries, gen.usage.input_tokens) == (1, 1, 102)


def test_retry_after_is_capped_and_an_http_date_keeps_the_backoff(provider: Provider) -> None:
    script = provider.script().then(
        ("status", 429, {"retry-after": "600"}),
        ("status", 503, {"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}),
        ("text", provider.wire([])),
    )
    gen = provider.generator(script)
    gen.generate("p")
    assert gen.slept == [10.0, 1.0]  # type: ignore[attr-defined]


def test_retry_after_ms_is_read_in_milliseconds(provider: Provider) -> None:
    script = provider.script().then(("status", 429, {"retry-after-ms": "2500"}), ("text", provider.wire([])))
    gen = provider.generator(script)
    gen.generate("p")
    assert gen.slept == [2.5]  # type: ignore[attr-defined]


def test_server_errors_are_retried_and_counted_when_they_persist(provider: Provider) -> None:
    script = provider.script().then(("status", 500), ("status", 529), ("status", 502))
    gen = provider.generator(script)
    with pytest.raises(GeneratorError, match="gave up after 3 attempts"):
        gen.generate("p")
    assert (gen.usage.calls, gen.usage.failures, gen.usage.retries) == (0, 1, 2)


def test_a_request_no_retry_can_fix_fails_at_once(provider: Provider) -> None:
    script = provider.script().then(("status", 401))
    gen = provider.generator(script)
    with pytest.raises(GeneratorError, match="AuthenticationError"):
        gen.generate("p")
    assert len(script.requests) == 1 and gen.usage.failures == 1 and gen.usage.retries == 0


def test_no_retries_means_one_attempt(provider: Provider) -> None:
    script = provider.script().then(("status", 429, {"retry-after": "1"}))
    gen = provider.generator(script, max_retries=0)
    with pytest.raises(GeneratorError, match="gave up after 1 attempts"):
        gen.generate("p")
    assert len(script.requests) == 1 and gen.slept == []  # type: ignore[attr-defined]

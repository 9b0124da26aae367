"""The LLM judge through the real ``anthropic`` SDK, its HTTP transport mocked (no network): the
batched adjudication request the SDK sends, and the verdicts read from the Messages API's answer."""

from __future__ import annotations

import json
from typing import Any

from pydantic import SecretStr

try:  # the SDK's HTTP library: httpx2 for anthropic>=2, httpx before
    import httpx2 as http
except ImportError:  # pragma: no cover
    import httpx as http  # type: ignore[no-redef]

from kgmem.analysis.judge import Pair, Statement
from kgmem.analysis.llm_judge import SYSTEM, LLMJudge
from kgmem.analysis.offline_judge import OfflineJudge
from kgmem.config import AnthropicSettings
from kgmem.llm import AnthropicGenerator


def messages_api(answers: list[tuple[int, str]], seen: list[dict[str, Any]]) -> Any:
    def handler(request: Any) -> Any:
        seen.append(json.loads(request.content))
        status, text = answers.pop(0)
        if status != 200:
            return http.Response(
                status,
                headers={"retry-after": "0"},
                json={"type": "error", "error": {"type": "api_error", "message": "scripted"}},
            )
        return http.Response(
            200,
            json={
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": "claude-test",
                "content": [{"type": "text", "text": text}],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": 321, "output_tokens": 40},
            },
        )

    return handler


def judge_with(answers: list[tuple[int, str]], seen: list[dict[str, Any]]) -> tuple[LLMJudge, AnthropicGenerator]:
    settings = AnthropicSettings(
        api_key=SecretStr("sk-test-not-real"),
        model="claude-test",
        max_retries=1,
        retry_initial_wait_s=0.0,
        retry_max_wait_s=0.0,
    )
    client = http.Client(transport=http.MockTransport(messages_api(answers, seen)))
    generator = AnthropicGenerator(settings, http_client=client)
    return LLMJudge(generator, OfflineJudge()), generator


PAIRS = [
    Pair(Statement("My new manager is Tomás"), Statement("My manager is Priya"), 0.62),
    Pair(Statement("Secrets are stored in HashiCorp Vault"), Statement("We keep secrets in Vault"), 0.81),
    Pair(Statement("I like coffee"), Statement("I like tea"), 0.58),
]


def test_one_request_carries_every_pair_and_its_answer_is_read() -> None:
    seen: list[dict[str, Any]] = []
    answer = json.dumps(
        {
            "verdicts": [
                {"pair": 1, "relation": "contradiction"},
                {"pair": 2, "relation": "paraphrase"},
                {"pair": 3, "relation": "distinct"},
            ]
        }
    )
    judge, generator = judge_with([(200, answer)], seen)
    found = judge.verdicts(PAIRS)
    assert [(v.relation, v.evidence) for v in found] == [
        ("contradiction", "llm"),
        ("paraphrase", "llm"),
        ("distinct", "llm"),
    ]
    (request,) = seen
    assert request["model"] == "claude-test" and request["system"] == SYSTEM
    prompt = request["messages"][0]["content"]
    assert prompt.count("<pair number=") == 3
    assert "<old>My manager is Priya</old>\n<new>My new manager is Tomás</new>" in prompt
    assert generator.usage.calls == 1 and generator.usage.input_tokens == 321


def test_a_server_error_after_the_retries_falls_back_to_the_offline_judge() -> None:
    seen: list[dict[str, Any]] = []
    judge, generator = judge_with([(500, ""), (500, "")], seen)
    found = judge.verdicts(PAIRS)
    assert len(seen) == 2  # one retry, then the SDK's error ends the call
    assert [v.evidence for v in found] == ["none", "embedding", "none"]
    assert judge.counters.failures == 1 and judge.counters.fallbacks == 3 and generator.usage.failures == 1


def test_an_answer_in_prose_and_a_fence_is_still_read() -> None:
    seen: list[dict[str, Any]] = []
    text = 'Here you go:\n```json\n{"verdicts": [{"pair": 1, "relation": "contradiction"}]}\n```'
    judge, _ = judge_with([(200, text)], seen)
    found = judge.verdicts(PAIRS[:1])
    assert found[0].relation == "contradiction" and judge.counters.failures == 0

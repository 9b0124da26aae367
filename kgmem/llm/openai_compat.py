"""Any OpenAI-compatible chat-completions endpoint through the official ``openai`` SDK.

OpenAI itself, or a local server given by ``base_url``: Ollama (``http://localhost:11434/v1``),
vLLM (``http://localhost:8000/v1``), llama.cpp's ``llama-server`` (``http://localhost:8080/v1``),
LM Studio (``http://localhost:1234/v1``).

JSON output: kgmem's callers ask for a JSON array or object in the prompt. A ``response_format``
can only require an object, so the request asks for the caller's JSON wrapped in an
``{"answer": ...}`` envelope — a JSON schema (``json_output = "schema"``, the default) or the older
JSON mode (``"object"``) — and :meth:`OpenAICompatGenerator._answer` hands the caller the content of
``answer`` as JSON text. An answer without the envelope is passed on unchanged: the caller's parser
decides (the analyzer counts it as malformed). ``"off"`` sends no ``response_format`` at all.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from kgmem.errors import ConfigError, GeneratorError
from kgmem.llm.retrying import LLMConfig, Refusal, RetryingGenerator, status_retryable

log = logging.getLogger(__name__)

ENVELOPE_KEY = "answer"
ENVELOPE_INSTRUCTION = (
    'Reply with one JSON object {"answer": ...} whose "answer" is exactly the JSON the instructions ask '
    "for (an array stays an array, an object stays an object)."
)
ENVELOPE_SCHEMA: dict[str, Any] = {
    "name": "answer",
    "strict": False,  # "answer" may be any JSON: a strict schema cannot say so
    "schema": {
        "type": "object",
        "properties": {ENVELOPE_KEY: {}},
        "required": [ENVELOPE_KEY],
        "additionalProperties": False,
    },
}
# A local server ignores the key, but the SDK needs a non-empty one.
NO_KEY = "not-needed"


class OpenAICompatGenerator(RetryingGenerator):
    """An OpenAI-compatible chat endpoint as a :class:`~kgmem.llm.TextGenerator`.

    Args:
        config: the resolved ``[llm]`` settings (provider ``openai``).
        http_client: an ``httpx`` client for the SDK (tests pass one with a mock transport).
        client: a ready ``openai.OpenAI`` client (overrides ``http_client``).
        usage_file: a file every request's counts are added to (:mod:`kgmem.llm.ledger`), or None.
    """

    provider = "openai"

    def __init__(
        self, config: LLMConfig, *, http_client: Any = None, client: Any = None, usage_file: Path | None = None
    ) -> None:
        super().__init__(config, usage_file)
        if config.json_output not in ("schema", "object", "off"):
            raise ConfigError(f"llm.json_output: must be schema, object or off; got {config.json_output!r}")
        if client is None:
            import openai

            kwargs: dict[str, Any] = {
                "api_key": config.api_key.get_secret_value() if config.api_key is not None else NO_KEY,
                "timeout": config.timeout_s,
                "max_retries": 0,  # the tenacity policy is the one retry policy
            }
            if config.base_url:
                kwargs["base_url"] = config.base_url
            if http_client is not None:
                kwargs["http_client"] = http_client
            client = openai.OpenAI(**kwargs)
        self._client = client

    @property
    def _enveloped(self) -> bool:
        return bool(self.settings.json_output != "off")

    def _call(self, prompt: str, system: str | None) -> Any:
        if self._enveloped:
            system = f"{system}\n\n{ENVELOPE_INSTRUCTION}" if system else ENVELOPE_INSTRUCTION
        messages: list[dict[str, str]] = []
        if system:
            messages.append({"role": "system", "content": system})
        messages.append({"role": "user", "content": prompt})
        kwargs: dict[str, Any] = {
            "model": self.settings.model,
            "messages": messages,
            # max_tokens, not max_completion_tokens: every local server reads it
            "max_tokens": self.settings.max_tokens,
        }
        if self.settings.json_output == "schema":
            kwargs["response_format"] = {"type": "json_schema", "json_schema": ENVELOPE_SCHEMA}
        elif self.settings.json_output == "object":
            kwargs["response_format"] = {"type": "json_object"}
        return self._client.chat.completions.create(**kwargs)

    def _answer(self, response: Any) -> str:
        choices = getattr(response, "choices", None) or []
        if not choices:
            raise GeneratorError(f"{self.name}: the answer has no choices")
        choice = choices[0]
        message = choice.message
        refusal = getattr(message, "refusal", None)
        if refusal:
            raise Refusal(f"{self.name}: the model refused to answer: {str(refusal)[:200]!r}")
        if choice.finish_reason == "content_filter":
            raise Refusal(f"{self.name}: the answer was withheld by the provider's content filter")
        if choice.finish_reason == "length":
            log.warning("%s: answer cut at max_tokens=%d", self.name, self.settings.max_tokens)
        text = message.content or ""
        return unwrap(text) if self._enveloped else text

    def _tokens(self, response: Any) -> tuple[int, int]:
        usage = getattr(response, "usage", None)
        return int(getattr(usage, "prompt_tokens", 0) or 0), int(getattr(usage, "completion_tokens", 0) or 0)

    def _retryable(self, exc: BaseException) -> bool:
        import openai

        return status_retryable(exc, openai.APIStatusError, (openai.APITimeoutError, openai.APIConnectionError))


def unwrap(text: str) -> str:
    """The JSON inside an ``{"answer": ...}`` envelope, as text; anything else unchanged."""
    try:
        data = json.loads(text)
    except ValueError:
        return text
    if isinstance(data, dict) and set(data) == {ENVELOPE_KEY}:
        return json.dumps(data[ENVELOPE_KEY], ensure_ascii=False)
    return text

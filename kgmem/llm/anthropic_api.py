"""The Anthropic Messages API through the official ``anthropic`` SDK."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from kgmem.config import AnthropicSettings
from kgmem.errors import ConfigError
from kgmem.llm.retrying import LLMConfig, Refusal, RetryingGenerator, status_retryable

log = logging.getLogger(__name__)


class AnthropicGenerator(RetryingGenerator):
    """The Anthropic Messages API as a :class:`~kgmem.llm.TextGenerator`.

    The Messages API has no JSON mode: the prompt asks for JSON and the caller's parser validates it.

    Args:
        settings: the ``[anthropic]`` settings, or an ``[llm]`` section resolved to an :class:`LLMConfig`
            (key, model, max_tokens, timeout, retries, backoff).
        http_client: an ``httpx`` client for the SDK (tests pass one with a mock transport).
        client: a ready ``anthropic.Anthropic`` client (overrides ``http_client``).
        usage_file: a file every request's counts are added to (:mod:`kgmem.llm.ledger`), or None.
    """

    provider = "anthropic"

    def __init__(
        self,
        settings: AnthropicSettings | LLMConfig,
        *,
        http_client: Any = None,
        client: Any = None,
        usage_file: Path | None = None,
    ) -> None:
        super().__init__(settings, usage_file)
        if client is None:
            if settings.api_key is None:
                raise ConfigError("anthropic.api_key: not set (set ANTHROPIC_API_KEY) — or use the offline extractor")
            import anthropic

            kwargs: dict[str, Any] = {
                "api_key": settings.api_key.get_secret_value(),
                "timeout": settings.timeout_s,
                "max_retries": 0,  # the tenacity policy is the one retry policy
            }
            if settings.base_url:
                kwargs["base_url"] = settings.base_url
            if http_client is not None:
                kwargs["http_client"] = http_client
            client = anthropic.Anthropic(**kwargs)
        self._client = client

    def _call(self, prompt: str, system: str | None) -> Any:
        kwargs: dict[str, Any] = {
            "model": self.settings.model,
            "max_tokens": self.settings.max_tokens,
            "messages": [{"role": "user", "content": prompt}],
        }
        if system:
            kwargs["system"] = system
        return self._client.messages.create(**kwargs)

    def _answer(self, response: Any) -> str:
        stop = getattr(response, "stop_reason", None)
        text = "".join(getattr(block, "text", "") for block in response.content if block.type == "text")
        if stop == "refusal":
            raise Refusal(f"{self.name}: the model refused to answer: {text[:200]!r}")
        if stop == "max_tokens":
            log.warning("%s: answer cut at max_tokens=%d", self.name, self.settings.max_tokens)
        return text

    def _tokens(self, response: Any) -> tuple[int, int]:
        usage = getattr(response, "usage", None)
        return int(getattr(usage, "input_tokens", 0) or 0), int(getattr(usage, "output_tokens", 0) or 0)

    def _retryable(self, exc: BaseException) -> bool:
        import anthropic

        return status_retryable(
            exc, anthropic.APIStatusError, (anthropic.APITimeoutError, anthropic.APIConnectionError)
        )

"""Text generation by an LLM: a one-method protocol, its Anthropic implementation, and the default.

Conversation analysis (:mod:`kgmem.analysis`) and match adjudication
(:mod:`kgmem.learning.adjudication`) both take a :class:`TextGenerator`; this module depends on
neither, so they do not depend on each other.

:class:`AnthropicGenerator` calls the Messages API through the official ``anthropic``
SDK. The SDK's own retries are switched off so that one policy (tenacity, exponential
backoff) governs 429, 5xx, connection errors and timeouts; when retries run out a
:class:`~kgmem.errors.GeneratorError` is raised, which the analyzer treats as
"no items this time" (non-fatal). Token usage is counted per generator.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from tenacity import RetryError, Retrying, retry_if_exception, stop_after_attempt, wait_exponential

from kgmem.config import AnthropicSettings, Settings
from kgmem.errors import ConfigError, GeneratorError

log = logging.getLogger(__name__)


@runtime_checkable
class TextGenerator(Protocol):
    """Anything that turns a prompt into text (an LLM, a test double, a local model)."""

    name: str

    def generate(self, prompt: str, *, system: str | None = None) -> str:
        """Return the model's text answer to ``prompt`` (raise GeneratorError on failure)."""
        ...


@dataclass
class Usage:
    """What a generator has consumed so far."""

    calls: int = 0
    failures: int = 0
    retries: int = 0
    input_tokens: int = 0
    output_tokens: int = 0

    def as_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


def _retryable(exc: BaseException) -> bool:
    import anthropic

    if isinstance(exc, (anthropic.APITimeoutError, anthropic.APIConnectionError, anthropic.RateLimitError)):
        return True
    return isinstance(exc, anthropic.APIStatusError) and exc.status_code >= 500


class AnthropicGenerator:
    """The Anthropic Messages API as a :class:`TextGenerator`.

    Args:
        settings: the ``[anthropic]`` settings (key, model, max_tokens, timeout, retries, backoff).
        http_client: an ``httpx`` client for the SDK (the SDK's own HTTP library; tests pass
            one with a mock transport).
        client: a ready ``anthropic.Anthropic`` client (overrides ``http_client``).
    """

    def __init__(self, settings: AnthropicSettings, *, http_client: Any = None, client: Any = None) -> None:
        self.settings = settings
        self.name = f"anthropic:{settings.model}"
        self.usage = Usage()
        self._lock = threading.Lock()
        if client is None:
            if settings.api_key is None:
                raise ConfigError("anthropic.api_key: not set (set ANTHROPIC_API_KEY) — or use the offline extractor")
            import anthropic

            kwargs: dict[str, Any] = {
                "api_key": settings.api_key.get_secret_value(),
                "timeout": settings.timeout_s,
                "max_retries": 0,  # tenacity below is the one retry policy
            }
            if settings.base_url:
                kwargs["base_url"] = settings.base_url
            if http_client is not None:
                kwargs["http_client"] = http_client
            client = anthropic.Anthropic(**kwargs)
        self._client = client

    def generate(self, prompt: str, *, system: str | None = None) -> str:
        """One Messages API call (with retries); returns the concatenated text blocks."""
        retrying = Retrying(
            retry=retry_if_exception(_retryable),
            stop=stop_after_attempt(self.settings.max_retries + 1),
            wait=self._wait,
            before_sleep=self._before_retry,
            reraise=False,
        )
        try:
            response = retrying(self._call, prompt, system)
        except RetryError as exc:
            self._add(failures=1)
            cause = exc.last_attempt.exception()
            raise GeneratorError(
                f"{self.name}: gave up after {self.settings.max_retries + 1} attempts: {cause}"
            ) from cause
        except Exception as exc:  # noqa: BLE001 - any SDK error (auth, bad request) ends this analysis only
            self._add(failures=1)
            raise GeneratorError(f"{self.name}: {type(exc).__name__}: {exc}") from exc
        usage = getattr(response, "usage", None)
        self._add(
            calls=1,
            input_tokens=int(getattr(usage, "input_tokens", 0) or 0),
            output_tokens=int(getattr(usage, "output_tokens", 0) or 0),
        )
        return "".join(getattr(block, "text", "") for block in response.content if block.type == "text")

    def _call(self, prompt: str, system: str | None) -> Any:
        kwargs: dict[str, Any] = {
            "model": self.settings.model,
            "max_tokens": self.settings.max_tokens,
            "messages": [{"role": "user", "content": prompt}],
        }
        if system:
            kwargs["system"] = system
        return self._client.messages.create(**kwargs)

    def _wait(self, state: Any) -> float:
        # Exponential backoff, but never sooner than the server's Retry-After (429/503), capped.
        backoff = wait_exponential(multiplier=self.settings.retry_initial_wait_s, max=self.settings.retry_max_wait_s)
        delay = backoff(state)
        exc = state.outcome.exception() if state.outcome else None
        response = getattr(exc, "response", None)
        header = response.headers.get("retry-after") if response is not None else None
        try:
            delay = max(delay, float(header)) if header else delay
        except ValueError:  # an HTTP date instead of seconds: keep the backoff
            pass
        return min(delay, self.settings.retry_max_wait_s)

    def _before_retry(self, state: Any) -> None:
        self._add(retries=1)
        exc = state.outcome.exception() if state.outcome else None
        log.warning("%s: attempt %d failed (%s); retrying", self.name, state.attempt_number, exc)

    def _add(self, **deltas: int) -> None:
        with self._lock:
            for key, n in deltas.items():
                setattr(self.usage, key, getattr(self.usage, key) + n)


def default_generator(settings: Settings) -> TextGenerator | None:
    """The Anthropic generator when a key is configured, else ``None`` (offline extraction)."""
    if settings.anthropic.api_key is None:
        log.info(
            "no Anthropic API key (ANTHROPIC_API_KEY): conversation analysis uses the offline "
            "rule-based extractor (lower quality; items marked source=offline)"
        )
        return None
    return AnthropicGenerator(settings.anthropic)

"""The retry and accounting policy every provider shares.

A provider's SDK runs with its own retries switched off, so one policy governs all of them:
tenacity with exponential backoff, never sooner than the server's ``Retry-After`` (or OpenAI's
``retry-after-ms``), capped at ``retry_max_wait_s``; 429, 408, 5xx, timeouts and connection errors
are retried. When retries run out — or the model refuses, or the request is one no retry can fix
(a bad key, an unknown model) — a :class:`~kgmem.errors.GeneratorError` is raised, which the
analyzer treats as "no items this time" (non-fatal).
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import SecretStr
from tenacity import RetryError, Retrying, retry_if_exception, stop_after_attempt, wait_exponential

from kgmem.errors import GeneratorError
from kgmem.llm.ledger import add_usage
from kgmem.llm.protocol import Usage

log = logging.getLogger(__name__)

RETRYABLE_STATUS = frozenset({408, 429})  # and every 5xx


@dataclass(frozen=True)
class LLMConfig:
    """One provider's resolved settings (from ``[llm]``, or ``[anthropic]`` when that is absent)."""

    provider: str
    model: str
    api_key: SecretStr | None = None
    base_url: str | None = None
    max_tokens: int = 2048
    timeout_s: float = 60.0
    max_retries: int = 4
    retry_initial_wait_s: float = 1.0
    retry_max_wait_s: float = 20.0
    json_output: str = "schema"


class Refusal(GeneratorError):
    """The model declined to answer (a refusal or a content filter): retrying would not help."""


class RetryingGenerator:
    """Base of the provider generators: retries, usage counting and errors; subclasses make the call.

    Subclasses set ``provider`` and implement :meth:`_call` (one SDK request), :meth:`_answer` (the text
    of a response, raising :class:`Refusal` when the model declined), :meth:`_tokens` and
    :meth:`_retryable`.
    """

    provider = ""
    # How a retry waits (tests replace it on an instance to record the delays instead).
    sleep = staticmethod(time.sleep)

    def __init__(self, config: Any, usage_file: Path | None = None) -> None:
        self.settings = config
        self.name = f"{self.provider}:{config.model}"
        self.usage = Usage(provider=self.provider, model=config.model)
        # Where every request's counts are also added for other processes (kgmem.llm.ledger); None: nowhere.
        self.usage_file = usage_file
        self._lock = threading.Lock()

    def generate(self, prompt: str, *, system: str | None = None) -> str:
        """One request (with retries); returns the model's text answer."""
        attempts = self.settings.max_retries + 1
        retrying = Retrying(
            retry=retry_if_exception(self._retryable),
            stop=stop_after_attempt(attempts),
            wait=self._wait,
            sleep=self.sleep,
            before_sleep=self._before_retry,
            reraise=False,
        )
        try:
            response = retrying(self._call, prompt, system)
        except RetryError as exc:
            self._add(failures=1)
            cause = exc.last_attempt.exception()
            raise GeneratorError(f"{self.name}: gave up after {attempts} attempts: {cause}") from cause
        except Exception as exc:  # noqa: BLE001 - any SDK error (auth, bad request) ends this analysis only
            self._add(failures=1)
            raise GeneratorError(f"{self.name}: {type(exc).__name__}: {exc}") from exc
        input_tokens, output_tokens = self._tokens(response)
        self._add(calls=1, input_tokens=input_tokens, output_tokens=output_tokens)
        try:
            return self._answer(response)
        except GeneratorError:
            self._add(failures=1)
            raise

    # -- provider hooks ---------------------------------------------------------------------------
    def _call(self, prompt: str, system: str | None) -> Any:
        raise NotImplementedError

    def _answer(self, response: Any) -> str:
        raise NotImplementedError

    def _tokens(self, response: Any) -> tuple[int, int]:
        raise NotImplementedError

    def _retryable(self, exc: BaseException) -> bool:
        raise NotImplementedError

    # -- shared policy ----------------------------------------------------------------------------
    def _wait(self, state: Any) -> float:
        # Exponential backoff, but never sooner than the server asks (429/503), capped.
        backoff = wait_exponential(multiplier=self.settings.retry_initial_wait_s, max=self.settings.retry_max_wait_s)
        delay = float(backoff(state))
        exc = state.outcome.exception() if state.outcome else None
        asked = retry_after(getattr(exc, "response", None))
        if asked is not None:
            delay = max(delay, asked)
        return min(delay, self.settings.retry_max_wait_s)

    def _before_retry(self, state: Any) -> None:
        self._add(retries=1)
        exc = state.outcome.exception() if state.outcome else None
        log.warning("%s: attempt %d failed (%s); retrying", self.name, state.attempt_number, exc)

    def _add(self, **deltas: int) -> None:
        with self._lock:
            for key, n in deltas.items():
                setattr(self.usage, key, getattr(self.usage, key) + n)
        if self.usage_file is not None:
            add_usage(self.usage_file, self.provider, self.usage.model, deltas)


def retry_after(response: Any) -> float | None:
    """Seconds an HTTP response asks the client to wait (``retry-after-ms`` or ``retry-after`` in
    seconds), or None (no header, or an HTTP date: the backoff stands)."""
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value:
            try:
                return max(0.0, float(value) * scale)
            except ValueError:
                continue
    return None


def status_retryable(exc: BaseException, status_error: type[BaseException], transient: tuple[type, ...]) -> bool:
    """Whether an SDK error is worth another attempt: a timeout or lost connection (``transient``), or
    a status error with 408, 429 or 5xx."""
    if isinstance(exc, transient):
        return True
    status = getattr(exc, "status_code", None) if isinstance(exc, status_error) else None
    return isinstance(status, int) and (status in RETRYABLE_STATUS or status >= 500)

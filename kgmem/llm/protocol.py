"""What every LLM implementation offers: the one-method :class:`TextGenerator` protocol and its :class:`Usage`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

COUNTERS = ("calls", "failures", "retries", "input_tokens", "output_tokens")


@runtime_checkable
class TextGenerator(Protocol):
    """Anything that turns a prompt into text (an LLM, a test double, a local model)."""

    name: str

    def generate(self, prompt: str, *, system: str | None = None) -> str:
        """Return the model's text answer to ``prompt`` (raise GeneratorError on failure)."""
        ...


@dataclass
class Usage:
    """What one generator (one provider and model) has consumed so far.

    ``calls`` are answered requests, ``failures`` requests given up (retries exhausted, a refusal,
    an error no retry can fix), ``retries`` the attempts repeated after a 429, 5xx, timeout or
    connection error; the tokens are the provider's own counts (prompt = input, completion = output).
    """

    provider: str = ""
    model: str = ""
    calls: int = 0
    failures: int = 0
    retries: int = 0
    input_tokens: int = 0
    output_tokens: int = 0

    def as_dict(self) -> dict[str, int | str]:
        """The counters, with the provider and model they belong to."""
        out: dict[str, int | str] = {"provider": self.provider, "model": self.model}
        out.update({name: getattr(self, name) for name in COUNTERS})
        return out

"""Text generation by an LLM: a one-method protocol, its implementations, and the configured default.

Conversation analysis (:mod:`kgmem.analysis`) and match adjudication
(:mod:`kgmem.learning.adjudication`) both take a :class:`TextGenerator`; this package depends on
neither, so they do not depend on each other.

- :class:`AnthropicGenerator`: the Anthropic Messages API (``anthropic`` SDK), the default.
- :class:`OpenAICompatGenerator`: any OpenAI-compatible chat endpoint (``openai`` SDK with
  ``base_url``): OpenAI, Ollama, vLLM, llama.cpp's server, LM Studio.
- :func:`default_generator`: the one ``[llm]`` (or, when that section is absent, ``[anthropic]``)
  configures, or ``None`` for the offline extractor.

Both SDKs run with their own retries off: one tenacity policy (:mod:`kgmem.llm.retrying`) retries
429 (honouring ``Retry-After``), 5xx, timeouts and connection errors. Every generator counts its
calls, failures, retries and tokens in a :class:`Usage` labelled with its provider and model
(``analysis_stats()["usage"]``), and a generator built from the settings adds them to
``$KGMEM_HOME/stats/llm.json`` for ``kgmem status`` (:mod:`kgmem.llm.ledger`).
"""

from kgmem.llm.anthropic_api import AnthropicGenerator
from kgmem.llm.factory import build_generator, default_generator, llm_status, resolve_llm
from kgmem.llm.ledger import read_usage, usage_path
from kgmem.llm.openai_compat import OpenAICompatGenerator
from kgmem.llm.protocol import TextGenerator, Usage
from kgmem.llm.retrying import LLMConfig, Refusal, RetryingGenerator

__all__ = [
    "AnthropicGenerator",
    "LLMConfig",
    "OpenAICompatGenerator",
    "Refusal",
    "RetryingGenerator",
    "TextGenerator",
    "Usage",
    "build_generator",
    "default_generator",
    "llm_status",
    "read_usage",
    "resolve_llm",
    "usage_path",
]

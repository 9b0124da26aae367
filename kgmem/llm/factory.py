"""Which LLM the settings ask for, built once by the composition root (:mod:`kgmem.app`).

``[llm]`` chooses the provider (``anthropic`` or ``openai``, the latter meaning any
OpenAI-compatible endpoint), its model, ``base_url`` and the environment variable holding its key.
When there is no ``[llm]`` section the ``[anthropic]`` section is read as before (its ``api_key`` or
``ANTHROPIC_API_KEY``), so configurations written before ``[llm]`` existed keep working; without a
key kgmem then analyses conversations with its offline extractor. An ``[llm]`` section asks for an
LLM explicitly: a key variable it needs but that is not set is a :class:`~kgmem.errors.ConfigError`
naming the variable.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from kgmem.config import Settings
from kgmem.errors import ConfigError
from kgmem.llm.anthropic_api import AnthropicGenerator
from kgmem.llm.ledger import read_usage, usage_path
from kgmem.llm.openai_compat import OpenAICompatGenerator
from kgmem.llm.protocol import TextGenerator
from kgmem.llm.retrying import LLMConfig

log = logging.getLogger(__name__)

DEFAULT_MODEL = {"anthropic": "claude-sonnet-4-5"}
DEFAULT_KEY_ENV = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}


def resolve_llm(settings: Settings, environ: Mapping[str, str] | None = None) -> LLMConfig | None:
    """The LLM the settings configure, its key read from the environment; None when there is none
    (no ``[llm]`` section and no Anthropic key: the offline extractor).

    Raises:
        ConfigError: an ``[llm]`` section whose key variable is not set (the message names it).
    """
    env = os.environ if environ is None else environ
    llm = settings.llm
    if llm is None:
        a = settings.anthropic
        if a.api_key is None:
            return None
        return LLMConfig(
            provider="anthropic",
            model=a.model,
            api_key=a.api_key,
            base_url=a.base_url,
            max_tokens=a.max_tokens,
            timeout_s=a.timeout_s,
            max_retries=a.max_retries,
            retry_initial_wait_s=a.retry_initial_wait_s,
            retry_max_wait_s=a.retry_max_wait_s,
        )
    # A local OpenAI-compatible server (base_url) needs no key unless the settings name a variable.
    key_env = llm.api_key_env
    if key_env is None and not (llm.provider == "openai" and llm.base_url):
        key_env = DEFAULT_KEY_ENV[llm.provider]
    key: SecretStr | None = None
    if key_env is not None:
        value = env.get(key_env, "").strip()
        if not value:
            raise ConfigError(
                f"llm: the environment variable {key_env} is not set; it must hold the {llm.provider} API key "
                f"(llm.api_key_env names the variable; remove the [llm] section to use the offline extractor)"
            )
        key = SecretStr(value)
    model = llm.model or DEFAULT_MODEL[llm.provider]  # the settings require a model for openai
    return LLMConfig(
        provider=llm.provider,
        model=model,
        api_key=key,
        base_url=llm.base_url,
        max_tokens=llm.max_tokens,
        timeout_s=llm.timeout_s,
        max_retries=llm.max_retries,
        retry_initial_wait_s=llm.retry_initial_wait_s,
        retry_max_wait_s=llm.retry_max_wait_s,
        json_output=llm.json_output,
    )


def build_generator(config: LLMConfig, *, http_client: Any = None, usage_file: Path | None = None) -> TextGenerator:
    """The generator of ``config``'s provider (``http_client``: an httpx client for its SDK; ``usage_file``:
    where its usage is also saved)."""
    if config.provider == "anthropic":
        return AnthropicGenerator(config, http_client=http_client, usage_file=usage_file)
    if config.provider == "openai":
        return OpenAICompatGenerator(config, http_client=http_client, usage_file=usage_file)
    raise ConfigError(f"llm.provider: must be anthropic or openai; got {config.provider!r}")


def default_generator(settings: Settings, *, http_client: Any = None) -> TextGenerator | None:
    """The generator the settings configure, or ``None`` (no key: offline extraction). Its usage is
    also saved under ``$KGMEM_HOME/stats`` for ``kgmem status``.

    Raises:
        ConfigError: an ``[llm]`` section whose key variable is not set.
    """
    config = resolve_llm(settings)
    if config is None:
        log.info(
            "no LLM configured (no [llm] section, no ANTHROPIC_API_KEY): conversation analysis uses the "
            "offline rule-based extractor (lower quality; items marked source=offline)"
        )
        return None
    where = f" at {config.base_url}" if config.base_url else ""
    log.info("conversation analysis uses %s:%s%s", config.provider, config.model, where)
    return build_generator(config, http_client=http_client, usage_file=usage_path(settings.home))


def llm_status(settings: Settings) -> dict[str, Any]:
    """What ``kgmem status`` shows: the LLM the settings configure (or why none) and the usage saved
    by every client of ``$KGMEM_HOME`` (per provider and model)."""
    out: dict[str, Any] = {"usage": read_usage(usage_path(settings.home))}
    try:
        config = resolve_llm(settings)
    except ConfigError as exc:
        return {**out, "analyzer": "misconfigured", "error": str(exc)}
    if config is None:
        return {**out, "analyzer": "offline extractor (no [llm] section, no ANTHROPIC_API_KEY)"}
    return {**out, "analyzer": f"{config.provider}:{config.model}", "base_url": config.base_url}

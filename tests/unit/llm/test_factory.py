"""The [llm] settings section, its fallback to [anthropic], and the generator the settings build."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgmem.config import load_settings
from kgmem.errors import ConfigError
from kgmem.llm import AnthropicGenerator, OpenAICompatGenerator, default_generator, resolve_llm


@pytest.fixture(autouse=True)
def _no_keys(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for var in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "KGMEM_CONFIG", "MY_LLM_KEY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("KGMEM_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)


def test_without_llm_or_key_analysis_is_offline() -> None:
    settings = load_settings()
    assert settings.llm is None
    assert resolve_llm(settings) is None and default_generator(settings) is None


def test_the_anthropic_section_is_read_when_llm_is_absent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-1")
    settings = load_settings(anthropic={"model": "claude-haiku-4-5", "max_retries": 1, "timeout_s": 9})
    config = resolve_llm(settings)
    assert config is not None and config.provider == "anthropic" and config.model == "claude-haiku-4-5"
    assert config.api_key is not None and config.api_key.get_secret_value() == "sk-ant-1"
    assert (config.max_retries, config.timeout_s) == (1, 9)
    gen = default_generator(settings)
    assert isinstance(gen, AnthropicGenerator) and gen.name == "anthropic:claude-haiku-4-5"


def test_an_openai_section_from_a_toml_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "kgmem.toml").write_text(
        '[llm]\nprovider = "openai"\nmodel = "gpt-4o-mini"\napi_key_env = "MY_LLM_KEY"\nmax_tokens = 512\n',
        encoding="utf-8",
    )
    monkeypatch.setenv("MY_LLM_KEY", "sk-proj-1")
    config = resolve_llm(load_settings())
    assert config is not None and (config.provider, config.model, config.max_tokens) == ("openai", "gpt-4o-mini", 512)
    assert config.api_key is not None and config.api_key.get_secret_value() == "sk-proj-1"
    assert isinstance(default_generator(load_settings()), OpenAICompatGenerator)


def test_environment_variables_configure_the_section(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KGMEM_LLM__PROVIDER", "openai")
    monkeypatch.setenv("KGMEM_LLM__MODEL", "qwen2.5:7b")
    monkeypatch.setenv("KGMEM_LLM__BASE_URL", "http://localhost:11434/v1")
    config = resolve_llm(load_settings())
    assert config is not None and config.base_url == "http://localhost:11434/v1" and config.api_key is None


def test_a_missing_key_variable_is_an_error_naming_it() -> None:
    with pytest.raises(ConfigError, match="OPENAI_API_KEY is not set"):
        resolve_llm(load_settings(llm={"provider": "openai", "model": "gpt-4o-mini"}))
    with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY is not set"):
        default_generator(load_settings(llm={"provider": "anthropic"}))
    local = {"provider": "openai", "model": "m", "base_url": "http://localhost:8000/v1", "api_key_env": "MY_LLM_KEY"}
    with pytest.raises(ConfigError, match="MY_LLM_KEY is not set"):
        resolve_llm(load_settings(llm=local))
    assert resolve_llm(load_settings(llm=local), environ={"MY_LLM_KEY": "token"}) is not None


def test_an_llm_section_supersedes_the_anthropic_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-1")
    settings = load_settings(
        anthropic={"model": "claude-old"}, llm={"provider": "openai", "model": "m", "base_url": "http://h:1/v1"}
    )
    config = resolve_llm(settings)
    assert config is not None and (config.provider, config.model, config.api_key) == ("openai", "m", None)
    anthropic_default = resolve_llm(load_settings(llm={"provider": "anthropic"}))
    assert anthropic_default is not None and anthropic_default.model == "claude-sonnet-4-5"


@pytest.mark.parametrize(
    ("llm", "names"),
    [
        ({"provider": "gemini", "model": "m"}, "llm.provider"),
        ({"provider": "openai"}, "model: required when provider is 'openai'"),
        ({"provider": "openai", "model": "m", "base_url": "localhost:11434"}, "llm.base_url"),
        ({"provider": "openai", "model": "m", "api_key_env": "sk-proj-abc123"}, "llm.api_key_env"),
        ({"provider": "openai", "model": "m", "json_output": "xml"}, "llm.json_output"),
        ({"provider": "openai", "model": "m", "timeout_s": 0}, "llm.timeout_s"),
        ({"provider": "openai", "model": "m", "api_key": "sk-1"}, "llm.api_key"),  # keys are never in the file
    ],
)
def test_bad_settings_are_errors_naming_the_key(llm: dict[str, object], names: str) -> None:
    with pytest.raises(ConfigError, match=names):
        load_settings(llm=llm)

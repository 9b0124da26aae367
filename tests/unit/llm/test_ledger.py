"""LLM usage saved for other processes: per provider and model, added request by request."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from pydantic import SecretStr

from kgmem.errors import GeneratorError
from kgmem.llm import AnthropicGenerator, LLMConfig, OpenAICompatGenerator, read_usage, usage_path
from kgmem.llm.ledger import add_usage
from tests.unit.llm.conftest import Script


def test_counts_are_added_per_provider_and_model(tmp_path: Path) -> None:
    path = usage_path(tmp_path)
    assert read_usage(path) == {}
    add_usage(path, "openai", "m", {"calls": 1, "input_tokens": 10})
    add_usage(path, "openai", "m", {"calls": 1, "input_tokens": 5, "retries": 2})
    add_usage(path, "anthropic", "c", {"failures": 1})
    assert read_usage(path) == {
        "openai:m": {"provider": "openai", "model": "m", "calls": 2, "input_tokens": 15, "retries": 2},
        "anthropic:c": {"provider": "anthropic", "model": "c", "failures": 1},
    }


def test_an_unreadable_file_reads_as_no_usage(tmp_path: Path) -> None:
    path = usage_path(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text("[1, 2", encoding="utf-8")
    assert read_usage(path) == {}


def test_generators_save_each_request(tmp_path: Path, anthropic_script: Script, openai_script: Script) -> None:
    path = usage_path(tmp_path)
    anthropic_script.then(("status", 429, {"retry-after": "0"}), ("text", "[]"))
    a = AnthropicGenerator(
        LLMConfig(provider="anthropic", model="c", api_key=SecretStr("k"), retry_initial_wait_s=0),
        http_client=anthropic_script.client(),
        usage_file=path,
    )
    a.generate("p")
    openai_script.then(("status", 400))
    o = OpenAICompatGenerator(
        LLMConfig(provider="openai", model="m"), http_client=openai_script.client(), usage_file=path
    )
    with pytest.raises(GeneratorError):
        o.generate("p")
    saved = read_usage(path)
    assert saved["anthropic:c"] == {k: v for k, v in a.usage.as_dict().items() if v != 0}  # none failed
    assert saved["anthropic:c"]["retries"] == 1 and saved["anthropic:c"]["input_tokens"] == 102
    assert saved["openai:m"] == {"provider": "openai", "model": "m", "failures": 1}


def test_kgmem_status_shows_the_llm_and_its_usage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kgmem.cli import main

    for var in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "KGMEM_CONFIG"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("KGMEM_HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    add_usage(usage_path(tmp_path), "openai", "qwen2.5:7b", {"calls": 3, "input_tokens": 900, "output_tokens": 60})
    runner = CliRunner()
    offline = runner.invoke(main, ["status"])
    assert offline.exit_code == 0, offline.output
    assert "llm:      offline extractor" in offline.output
    assert "openai:qwen2.5:7b  3 calls, 0 failed, 0 retries, 900 input / 60 output tokens" in offline.output
    (tmp_path / "kgmem.toml").write_text(
        '[llm]\nprovider = "openai"\nmodel = "qwen2.5:7b"\nbase_url = "http://localhost:11434/v1"\n', encoding="utf-8"
    )
    local = json.loads(runner.invoke(main, ["status", "--json"]).output)["llm"]
    assert local["analyzer"] == "openai:qwen2.5:7b" and local["base_url"] == "http://localhost:11434/v1"
    assert local["usage"]["openai:qwen2.5:7b"]["calls"] == 3
    monkeypatch.setenv("KGMEM_LLM__API_KEY_ENV", "MY_UNSET_KEY")
    missing = runner.invoke(main, ["status"])
    assert "llm:      misconfigured" in missing.output and "MY_UNSET_KEY is not set" in missing.output

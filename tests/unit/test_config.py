"""Settings: sources, priorities and clear errors naming the bad key."""

import os
from pathlib import Path

import pytest

from kgmem.config import load_settings
from kgmem.errors import ConfigError


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    for key in list(os.environ):
        if key.startswith("KGMEM_") or key == "ANTHROPIC_API_KEY":
            monkeypatch.delenv(key)
    monkeypatch.setenv("KGMEM_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_defaults_follow_design(clean_env: Path) -> None:
    s = load_settings()
    assert s.neo4j.uri == "bolt://127.0.0.1:7687"
    assert s.learning.auto_apply_threshold == 0.7
    assert s.learning.propagation_rate == 0.3
    assert (s.analysis.turn_threshold, s.analysis.token_threshold) == (5, 2000)
    assert s.analysis.dedup_cosine == 0.75
    assert s.retrieval.preset == "balanced" and s.retrieval.overrides() == {}
    assert s.chroma_path == clean_env / "home" / "chroma"
    assert s.anthropic.api_key is None


@pytest.mark.parametrize("uri", ["bolt://h:7687", "neo4j://h:7687", "neo4j+s://abc.databases.neo4j.io"])
def test_accepted_uri_schemes(clean_env: Path, uri: str) -> None:
    assert load_settings(neo4j={"uri": uri}).neo4j.uri == uri


def test_bad_uri_names_the_key(clean_env: Path) -> None:
    with pytest.raises(ConfigError, match=r"neo4j\.uri"):
        load_settings(neo4j={"uri": "http://localhost:7474"})


def test_env_overrides_toml_and_both_are_read(clean_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (clean_env / "kgmem.toml").write_text('namespace = "from-toml"\n[learning]\nauto_apply_threshold = 0.8\n')
    s = load_settings()
    assert s.namespace == "from-toml" and s.learning.auto_apply_threshold == 0.8
    monkeypatch.setenv("KGMEM_LEARNING__AUTO_APPLY_THRESHOLD", "0.9")
    assert load_settings().learning.auto_apply_threshold == 0.9


def test_home_config_file_has_lowest_file_priority(clean_env: Path) -> None:
    home = clean_env / "home"
    home.mkdir()
    (home / "kgmem.toml").write_text('[neo4j]\npassword = "pw-home"\nbolt_port = 17687\n')
    (clean_env / "kgmem.toml").write_text("[neo4j]\nbolt_port = 27687\n")
    s = load_settings()
    assert s.neo4j.password is not None and s.neo4j.password.get_secret_value() == "pw-home"
    assert s.neo4j.bolt_port == 27687


def test_invalid_env_value_names_the_key(clean_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KGMEM_LEARNING__AUTO_APPLY_THRESHOLD", "1.7")
    with pytest.raises(ConfigError, match=r"learning\.auto_apply_threshold"):
        load_settings()


def test_unknown_key_is_rejected(clean_env: Path) -> None:
    (clean_env / "kgmem.toml").write_text('[neo4j]\nurl = "bolt://x"\n')
    with pytest.raises(ConfigError, match=r"neo4j\.url"):
        load_settings()


def test_anthropic_key_from_standard_variable(clean_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    key = load_settings().anthropic.api_key
    assert key is not None and key.get_secret_value() == "sk-test"
    assert "sk-test" not in repr(load_settings())


def test_retrieval_overrides_only_what_is_set(clean_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KGMEM_RETRIEVAL__RRF_K", "60")
    assert load_settings().retrieval.overrides() == {"rrf_k": 60}


def test_config_error_never_echoes_a_password_in_a_uri(monkeypatch) -> None:
    from kgmem.config import load_settings, redact
    from kgmem.errors import ConfigError

    monkeypatch.setenv("KGMEM_NEO4J__URI", "http://neo4j:hunter2@db.example:7687")
    with pytest.raises(ConfigError) as info:
        load_settings()
    assert "hunter2" not in str(info.value) and "neo4j:***@db.example" in str(info.value)
    assert info.value.__cause__ is None and info.value.__suppress_context__  # no chained pydantic dump
    assert redact("bolt+s://u:p%40ss@h:1 and neo4j://x:y@z") == "bolt+s://u:***@h:1 and neo4j://x:***@z"


def test_empty_namespace_is_a_config_error(monkeypatch) -> None:
    from kgmem.config import load_settings, resolve_namespace
    from kgmem.errors import ConfigError, ValidationError

    monkeypatch.setenv("KGMEM_NAMESPACE", "  ")
    with pytest.raises(ConfigError, match="namespace"):
        load_settings()
    with pytest.raises(ValidationError, match="ns: must be a non-empty string"):
        resolve_namespace("", "default")
    assert resolve_namespace(None, "default") == "default" and resolve_namespace("x", "default") == "x"

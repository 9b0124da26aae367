"""Bearer-token auth of the HTTP MCP server: token loading, the constant-time verifier, and the
refusal of a public bind without a token."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from pydantic import SecretStr

from kgmem.config import McpSettings
from kgmem.errors import ConfigError
from kgmem.mcp.auth import StaticTokenVerifier, check_bind, is_loopback, load_token

TOKEN = "s3cret-token-of-enough-length"


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "localhost", "LOCALHOST", "::1", "[::1]"])
def test_loopback_hosts(host: str) -> None:
    assert is_loopback(host)
    check_bind(host, None)  # no token needed


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "10.0.0.5", "192.168.1.2", "example.com", "localhost.evil.com"])
def test_public_bind_needs_a_token(host: str) -> None:
    assert not is_loopback(host)
    with pytest.raises(ConfigError, match="bearer token"):
        check_bind(host, None)
    check_bind(host, TOKEN)


def test_token_from_file_env_setting(tmp_path: Path) -> None:
    path = tmp_path / "token"
    path.write_text(TOKEN + "\n")
    assert load_token(McpSettings(), path) == TOKEN  # the trailing newline is not part of it
    assert load_token(McpSettings(token_file=path)) == TOKEN
    assert load_token(McpSettings(token=SecretStr(TOKEN))) == TOKEN
    assert load_token(McpSettings()) is None
    with pytest.raises(ConfigError, match="cannot read"):
        load_token(McpSettings(), tmp_path / "missing")
    with pytest.raises(ConfigError, match="at least"):
        load_token(McpSettings(token=SecretStr("short")))
    path.write_text("two words and more than sixteen")
    with pytest.raises(ConfigError, match="whitespace"):
        load_token(McpSettings(), path)


def test_verifier_accepts_the_token_only() -> None:
    verifier = StaticTokenVerifier(TOKEN)
    ok = asyncio.run(verifier.verify_token(TOKEN))
    assert ok is not None and ok.token == TOKEN
    for wrong in ("", TOKEN[:-1], TOKEN + "x", TOKEN.upper(), "é" * len(TOKEN)):
        assert asyncio.run(verifier.verify_token(wrong)) is None, wrong


@pytest.mark.parametrize("host", ["::", "0.0.0.0", "::1", "[::1]", "example.com"])
def test_server_with_a_token_builds_for_any_host(host: str) -> None:
    from kgmem.config import load_settings
    from kgmem.mcp import build_server

    build_server(load_settings(namespace="auth-test"), token=TOKEN, host=host, port=8765)


def test_cli_refuses_a_public_bind_without_a_token(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from kgmem.cli.mcp import mcp_cmd

    for key in ("KGMEM_MCP__TOKEN", "KGMEM_MCP__TOKEN_FILE"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("KGMEM_CONFIG", str(tmp_path / "none.toml"))
    result = CliRunner().invoke(mcp_cmd, ["--transport", "http", "--host", "0.0.0.0"])
    assert result.exit_code == 2 and "needs a bearer token" in result.output
    result = CliRunner().invoke(mcp_cmd, ["--token-file", str(tmp_path / "t")])  # stdio takes no token
    assert result.exit_code == 2 and "only for --transport http" in result.output

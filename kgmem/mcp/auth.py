"""Bearer-token authentication of ``kgmem mcp --transport http``.

The SDK's own resource-server auth does the HTTP side (``AuthSettings`` + a ``TokenVerifier``:
a request without a valid ``Authorization: Bearer`` header gets 401 before it reaches a tool);
this module supplies the verifier — one static token, compared in constant time — and the rule
that a server reachable from other machines must have a token.
"""

from __future__ import annotations

import hmac
import ipaddress
from pathlib import Path

from kgmem.config import McpSettings
from kgmem.errors import ConfigError

#: The client id reported for a request that presented the configured token.
CLIENT_ID = "kgmem-token"
MIN_TOKEN_CHARS = 16


def is_loopback(host: str) -> bool:
    """True when ``host`` is reachable from this machine only (127.0.0.0/8, ::1, ``localhost``).
    Any other name, and the wildcards ``0.0.0.0`` / ``::``, count as public."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip().strip("[]")).is_loopback
    except ValueError:
        return False  # a host name: it may resolve to a public interface


def load_token(settings: McpSettings, token_file: Path | None = None) -> str | None:
    """The bearer token: ``token_file`` (the CLI's ``--token-file``) first, then ``[mcp] token_file``,
    then ``[mcp] token``; None when none is configured. Surrounding whitespace (a file's trailing
    newline) is not part of the token."""
    path = token_file or settings.token_file
    if path is not None:
        try:
            text = Path(path).expanduser().read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"mcp.token_file: cannot read {path}: {exc.strerror or exc}") from None
        return _check(text.strip(), f"mcp.token_file ({path})")
    if settings.token is not None:
        return _check(settings.token.get_secret_value().strip(), "mcp.token")
    return None


def _check(token: str, what: str) -> str:
    if len(token) < MIN_TOKEN_CHARS:
        raise ConfigError(
            f"{what}: the token must be at least {MIN_TOKEN_CHARS} characters "
            f"(e.g. `python -c 'import secrets; print(secrets.token_urlsafe(32))'`)"
        )
    if any(c.isspace() for c in token):
        raise ConfigError(f"{what}: the token must not contain whitespace")
    return token


def check_bind(host: str, token: str | None) -> None:
    """Refuse to serve HTTP on a non-loopback interface without a token: anyone reaching the port
    could read and write the whole namespace."""
    if token is None and not is_loopback(host):
        raise ConfigError(
            f"--host {host}: serving MCP beyond this machine needs a bearer token "
            "(--token-file PATH, or KGMEM_MCP__TOKEN / [mcp] token_file); refusing to start"
        )


class StaticTokenVerifier:
    """An SDK ``TokenVerifier`` that accepts exactly one token (``hmac.compare_digest``: the time
    taken does not reveal how much of a guess was right)."""

    def __init__(self, token: str) -> None:
        self._token = token.encode("utf-8")

    async def verify_token(self, token: str):  # noqa: ANN201 - mcp.server.auth.provider.AccessToken | None
        from mcp.server.auth.provider import AccessToken

        if not hmac.compare_digest(token.encode("utf-8"), self._token):
            return None
        return AccessToken(token=token, client_id=CLIENT_ID, scopes=[])

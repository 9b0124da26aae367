"""``kgmem mcp``: serve kgmem to MCP clients (Claude Desktop, IDE agents) over stdio or HTTP."""

from __future__ import annotations

from pathlib import Path

import click


@click.command("mcp")
@click.option(
    "--transport",
    type=click.Choice(["stdio", "http"]),
    default="stdio",
    show_default=True,
    help="stdio (the client starts `kgmem mcp`) or streamable HTTP (a long-running server).",
)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="HTTP: interface to listen on. Anything but loopback needs a bearer token.",
)
@click.option("--port", default=8765, show_default=True, type=click.IntRange(1, 65535), help="HTTP: port.")
@click.option("--ns", default=None, help="The one namespace this server serves (default from settings).")
@click.option(
    "--token-file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="HTTP: file holding the bearer token clients must send (else [mcp] token_file / "
    "KGMEM_MCP__TOKEN_FILE, or [mcp] token / KGMEM_MCP__TOKEN).",
)
@click.option(
    "--allow-forget-everything",
    is_flag=True,
    help="Let the forget tool erase the whole namespace (everything=true); off by default.",
)
def mcp_cmd(
    transport: str, host: str, port: int, ns: str | None, token_file: Path | None, allow_forget_everything: bool
) -> None:
    """Run kgmem as a Model Context Protocol server (tools: tool_result, resolve, correction, turn,
    end_session, search, context, feedback, learnings_list, learnings_add, report, forget).

    The server acts only inside its namespace: no tool takes a namespace argument. Over HTTP with a
    token every request must carry `Authorization: Bearer <token>`; without one it listens on
    loopback only."""
    from kgmem.config import load_settings
    from kgmem.errors import ConfigError
    from kgmem.mcp import build_server
    from kgmem.mcp.auth import check_bind, load_token

    overrides: dict[str, object] = {"namespace": ns} if ns is not None else {}
    if allow_forget_everything:
        overrides["forget"] = {"mcp_everything": True}
    settings = load_settings(**overrides)
    token = None
    if transport == "http":
        try:
            token = load_token(settings.mcp, token_file)
            check_bind(host, token)
        except ConfigError as exc:
            raise click.UsageError(str(exc)) from None
    elif token_file is not None:
        raise click.UsageError("--token-file: only for --transport http (a stdio server is its client's child)")
    # stdout is the stdio protocol: what the server serves goes to stderr, so a misconfigured client
    # (no env, another KGMEM_HOME) shows at once which Neo4j and namespace it reached.
    where = f"namespace {settings.namespace!r}, Neo4j {settings.neo4j.uri} (database {settings.neo4j.database})"
    server = build_server(settings, token=token, host=host, port=port)
    if transport == "stdio":
        click.echo(f"kgmem MCP server on stdio: {where}", err=True)
        server.run("stdio")
    else:
        auth = "bearer token required" if token else "no token (loopback only)"
        click.echo(f"kgmem MCP server on http://{host}:{port}/mcp: {where}; {auth}", err=True)
        server.run("streamable-http", host=host, port=port)

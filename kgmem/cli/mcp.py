"""``kgmem mcp``: serve kgmem to MCP clients (Claude Desktop, IDE agents) over stdio or HTTP."""

from __future__ import annotations

import click


@click.command("mcp")
@click.option("--transport", type=click.Choice(["stdio", "http"]), default="stdio", show_default=True,
              help="stdio (the client starts `kgmem mcp`) or streamable HTTP (a long-running server).")
@click.option("--host", default="127.0.0.1", show_default=True, help="HTTP: interface to listen on.")
@click.option("--port", default=8765, show_default=True, type=click.IntRange(1, 65535), help="HTTP: port.")
@click.option("--ns", default=None, help="Namespace (default from settings).")
def mcp_cmd(transport: str, host: str, port: int, ns: str | None) -> None:
    """Run kgmem as a Model Context Protocol server (tools: tool_result, resolve, correction, turn,
    end_session, search, context, feedback, learnings_list, learnings_add, report)."""
    from kgmem.config import load_settings
    from kgmem.mcp import build_server

    settings = load_settings(**({"namespace": ns} if ns else {}))
    server = build_server(settings)
    if transport == "stdio":
        server.run("stdio")  # stdout is the protocol: kgmem logs go to stderr
    else:
        click.echo(f"kgmem MCP server on http://{host}:{port}/mcp (namespace {settings.namespace})", err=True)
        server.run("streamable-http", host=host, port=port)

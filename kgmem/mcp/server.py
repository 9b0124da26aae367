"""The MCP server: kgmem's agent-facing API as MCP tools, over stdio or streamable HTTP.

Each tool is one :class:`~kgmem.KGMem` method, generated from the API declaration
(:mod:`kgmem.api`, :mod:`kgmem.mcp.tools`): the schemas the client sees — types, defaults,
limits, the kinds/presets/levels/types/reports as enums — are the declared ones, results are
JSON objects.
kgmem's own errors (bad input, unknown ids, backend down) come back as tool errors naming
the problem (``is_error`` results the model can read and correct), never as crashes.

The server is a namespace boundary: it serves the one namespace it was started with
(``settings.namespace``) and passes it to every call. A namespace is not a tool argument
(an ``ns`` argument, like any argument a tool does not declare, is refused), nor a report
parameter; another namespace's query ids and error ids are answered as unknown.

The client is built on the first tool call, not at start-up, so a server whose Neo4j is
down still starts and answers every call with a clear error; it is closed (pending
conversation analysis flushed) when the server stops. Sync tools run on the SDK's worker
threads; the client's engines are thread-safe (one driver, locked model).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from kgmem.config import Settings, load_settings
from kgmem.mcp.tools import NAMESPACE_ARGS, register

log = logging.getLogger(__name__)

INSTRUCTIONS = (
    "kgmem remembers what your tools did and what the user taught you. Report every tool call with "
    "tool_result (failures come back with known fixes, best first; apply one flagged auto_apply), then "
    "resolve the failure with what fixed it. Record conversation turns with turn and close a session with "
    "end_session. Before answering, search or context; then send feedback with the hits you used."
)


class _ClientHolder:
    """One :class:`KGMem` per server, built on first use (thread-safe), closed at shutdown."""

    def __init__(self, factory: Callable[[], Any]) -> None:
        self._factory = factory
        self._client: Any = None
        self._lock = threading.Lock()

    def get(self) -> Any:
        if self._client is None:
            with self._lock:
                if self._client is None:
                    self._client = self._factory()
        return self._client

    def close(self) -> None:
        with self._lock:
            if self._client is not None:
                self._client.close()
                self._client = None


def _namespace_bound_server_class() -> type:
    """``MCPServer`` refusing any argument a tool does not declare (built lazily: ``mcp`` is imported
    only when a server is)."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    class NamespaceBoundServer(MCPServer):  # type: ignore[misc]
        """An MCP server bound to one namespace. The SDK ignores undeclared arguments; here they are
        refused, naming them, so a caller that tries ``ns`` learns it has no effect instead of
        believing it worked."""

        def __init__(self, ns: str, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.namespace = ns

        async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
            declared = await self._declared(name)
            if declared is not None:
                extra = sorted(set(arguments or {}) - declared)
                scoped = [a for a in extra if a.strip().lower() in NAMESPACE_ARGS]
                if scoped:
                    raise ToolError(
                        f"ValidationError: {scoped[0]}: not an argument; this server serves namespace "
                        f"{self.namespace!r} only (set at start: kgmem mcp --ns)"
                    )
                if extra:
                    raise ToolError(
                        f"ValidationError: {name}: unknown argument(s) {', '.join(map(repr, extra))}; "
                        f"expected {', '.join(sorted(declared))}"
                    )
            return await super().call_tool(name, arguments, context)

        async def _declared(self, name: str) -> set[str] | None:
            for tool in await self.list_tools():
                if tool.name == name:
                    return set((tool.input_schema or {}).get("properties", {}))
            return None  # unknown tool: the SDK's own error names it

    return NamespaceBoundServer


def build_server(
    settings: Settings | None = None,
    *,
    client_factory: Callable[[], Any] | None = None,
    token: str | None = None,
    host: str = "127.0.0.1",
    port: int = 8765,
) -> Any:
    """The kgmem MCP server (an ``mcp.server.mcpserver.MCPServer``); run it with ``.run("stdio")``
    or ``.run("streamable-http", host=..., port=...)``.

    Args:
        settings: kgmem settings; ``settings.namespace`` is the one namespace the server serves.
            Read from the environment when omitted.
        client_factory: builds the :class:`KGMem` on first use (tests inject a shared model).
        token: HTTP only — the bearer token every request must carry (:mod:`kgmem.mcp.auth`);
            ``host``/``port`` name the server in its auth settings.
    """
    from mcp.server.auth.settings import AuthSettings
    from mcp.server.mcpserver.exceptions import ToolError

    from kgmem.mcp.auth import StaticTokenVerifier

    settings = settings or load_settings()
    ns = settings.namespace  # pinned: every call below passes it, whatever the arguments say

    def default_factory() -> Any:
        from kgmem.client import KGMem

        return KGMem(settings)

    holder = _ClientHolder(client_factory or default_factory)

    @asynccontextmanager
    async def lifespan(_server: Any) -> AsyncIterator[None]:
        try:
            yield
        finally:
            holder.close()

    auth: dict[str, Any] = {}
    if token is not None:
        name = f"[{host}]" if ":" in host and not host.startswith("[") else host  # IPv6 literal
        url = f"http://{name}:{port}"  # names this resource server; no OAuth routes are served
        auth = {
            "token_verifier": StaticTokenVerifier(token),
            "auth": AuthSettings(issuer_url=url, resource_server_url=None),
        }
    server = _namespace_bound_server_class()(ns, "kgmem", instructions=INSTRUCTIONS, lifespan=lifespan, **auth)

    def tool_error(exc: Exception) -> Exception:
        return ToolError(f"{type(exc).__name__}: {exc}")

    # One tool per operation the API declares for MCP (kgmem/api.py); the namespace is pinned.
    register(server, holder.get, ns, tool_error, forget_everything=settings.forget.mcp_everything)
    return server

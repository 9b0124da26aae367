"""The MCP server: kgmem's agent-facing API as MCP tools, over stdio or streamable HTTP.

Each tool is a thin typed wrapper over one :class:`~kgmem.KGMem` method — the schemas the
client sees come from the annotated signatures below (pydantic), results are JSON objects.
kgmem's own errors (bad input, unknown ids, backend down) come back as tool errors naming
the problem (``is_error`` results the model can read and correct), never as crashes.

The client is built on the first tool call, not at start-up, so a server whose Neo4j is
down still starts and answers every call with a clear error; it is closed (pending
conversation analysis flushed) when the server stops. Sync tools run on the SDK's worker
threads; the client's engines are thread-safe (one driver, locked model).
"""

from __future__ import annotations

import dataclasses
import json
import logging
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Annotated, Any, Literal, TypeVar

from pydantic import Field

from kgmem.config import Settings, load_settings
from kgmem.errors import KGMemError

log = logging.getLogger(__name__)

T = TypeVar("T")
Json = dict[str, Any]

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


def _plain(value: Any) -> Any:
    """A JSON-ready copy (dataclasses, tuples, Neo4j temporal values → str)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.asdict(value)
    return json.loads(json.dumps(value, default=str))


def build_server(settings: Settings | None = None, *, client_factory: Callable[[], Any] | None = None,
                 host: str = "127.0.0.1", port: int = 8765) -> Any:
    """The kgmem MCP server (an ``mcp.server.mcpserver.MCPServer``); run it with ``.run("stdio")``
    or ``.run("streamable-http", host=..., port=...)``.

    Args:
        settings: kgmem settings (namespace included); read from the environment when omitted.
        client_factory: builds the :class:`KGMem` on first use (tests inject a shared model).
    """
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    def default_factory() -> Any:
        from kgmem.client import KGMem

        return KGMem(settings or load_settings())

    holder = _ClientHolder(client_factory or default_factory)

    @asynccontextmanager
    async def lifespan(_server: Any) -> AsyncIterator[None]:
        try:
            yield
        finally:
            holder.close()

    server = MCPServer("kgmem", instructions=INSTRUCTIONS, lifespan=lifespan)

    def call(fn: Callable[[Any], T]) -> T:
        try:
            return fn(holder.get())
        except KGMemError as exc:  # anticipated: the model reads the message and corrects its call
            raise ToolError(f"{type(exc).__name__}: {exc}") from exc

    # -- learning ----------------------------------------------------------------------
    @server.tool()
    def tool_result(
        tool: Annotated[str, Field(description="Name of the tool that was called.", min_length=1)],
        params: Annotated[dict[str, Any] | None, Field(description="The call's parameters.")] = None,
        error: Annotated[str | None, Field(description="The error message if the call failed; omit on success.")] = None,
        session: Annotated[str | None, Field(description="Your session id; needed to learn fixes.")] = None,
    ) -> Json:
        """Report one tool call. On failure: the error's id and the known fixes, best first (apply one
        with auto_apply=true). On success after a failure in the session: the fix recorded for it."""
        return _plain(call(lambda m: m.tool_result(tool, params, error=error, session=session)))

    @server.tool()
    def resolve(
        error_id: Annotated[str, Field(description="The id tool_result returned for the failure.", min_length=1)],
        fix: Annotated[str, Field(description="What fixed it, in a sentence.", min_length=1)],
        success: Annotated[bool, Field(description="False if the fix did not work.")] = True,
        session: Annotated[str | None, Field(description="The session the failure happened in.")] = None,
    ) -> Json:
        """Record what fixed a failure (or did not). A recovery already observed in the session is
        named, not counted twice."""
        return _plain(call(lambda m: m.resolve(error_id, fix, success=success, session=session)))

    @server.tool()
    def correction(
        text: Annotated[str, Field(description="The user's correction, as they said it.", min_length=1)],
        error_id: Annotated[str | None, Field(description="The failure it corrects, if any.")] = None,
    ) -> Json:
        """Store a user correction (trusted knowledge; with error_id also the user's fix, which
        outranks learnt fixes)."""
        out = call(lambda m: m.correction(text, error=error_id))
        return {"stored": True, "fix": _plain(out) if out is not None else None}

    # -- conversation ----------------------------------------------------------------------
    @server.tool()
    def turn(
        session: Annotated[str, Field(description="Conversation/session id.", min_length=1)],
        role: Annotated[str, Field(description="user, assistant, system or tool.", min_length=1)],
        text: Annotated[str, Field(description="What was said.", min_length=1)],
        ref: Annotated[str | None, Field(description="Your id for this turn (idempotency).")] = None,
    ) -> Json:
        """Store one conversation turn; knowledge is extracted from it in the background."""
        return {"id": call(lambda m: m.turn(session=session, role=role, text=text, ref=ref))}

    @server.tool()
    def end_session(session: Annotated[str, Field(description="The session to close.", min_length=1)]) -> Json:
        """Close a session: analyse what is pending and learn from the whole session."""
        call(lambda m: m.end_session(session))
        return {"closed": session}

    # -- retrieval ----------------------------------------------------------------------
    @server.tool()
    def search(
        query: Annotated[str, Field(description="What to look for.", min_length=1)],
        k: Annotated[int, Field(ge=1, le=100, description="Number of hits.")] = 10,
        session: Annotated[str | None, Field(description="Only this session's conversation turns.")] = None,
        kinds: Annotated[list[Literal["message", "knowledge", "error", "fix", "entity"]] | None,
                         Field(description="Kinds of hits (default all).")] = None,
        preset: Annotated[Literal["fast", "balanced", "deep"] | None, Field(description="Search preset.")] = None,
    ) -> Json:
        """Graph RAG search over everything kgmem knows; pass query_id and the hits you used to feedback."""
        return _plain(call(lambda m: m.search(query, k, session=session, kinds=kinds, preset=preset)).to_dict())

    @server.tool()
    def context(
        query: Annotated[str, Field(description="What the prompt is about.", min_length=1)],
        max_tokens: Annotated[int, Field(ge=50, le=20000, description="Budget of the block.")] = 1000,
    ) -> Json:
        """A prompt-ready block of what kgmem knows about query, with numbered citations."""
        ctx = call(lambda m: m.context(query, max_tokens))
        return {"text": ctx.text, "confidence": ctx.confidence, "query_id": ctx.query_id,
                "citations": [_plain(h.to_dict()) for h in ctx.citations]}

    @server.tool()
    def feedback(
        query_id: Annotated[str, Field(description="query_id of a search or context.", min_length=1)],
        used: Annotated[list[str], Field(description="Ids of the hits you used.")],
        outcome: Annotated[Literal["included", "referenced", "success", "positive", "negative"] | float,
                           Field(description="How it went (or a number in [-1, 1]).")] = "included",
    ) -> Json:
        """Tell kgmem which hits helped; later searches rank by it."""
        call(lambda m: m.feedback(query_id, used=used, outcome=outcome))
        return {"recorded": len(used)}

    # -- curated knowledge, reports -------------------------------------------------------
    @server.tool()
    def learnings_list(
        type: Annotated[str | None, Field(description="fact, preference, procedure, correction, ...")] = None,
        min_confidence: Annotated[float, Field(ge=0.0, le=1.0)] = 0.0,
        include_inactive: bool = False,
    ) -> Json:
        """Knowledge items kgmem has learnt, most trusted first."""
        items = call(lambda m: m.learnings(type=type, min_confidence=min_confidence,
                                           include_inactive=include_inactive))
        return {"items": _plain(items)}

    @server.tool()
    def learnings_add(
        content: Annotated[str, Field(description="The knowledge, one statement.", min_length=1)],
        type: Annotated[str, Field(description="fact, preference, procedure, ...")] = "fact",
    ) -> Json:
        """Add a knowledge item by hand (confidence 1.0, never decayed)."""
        return _plain(call(lambda m: m.add_knowledge(content, type)))

    @server.tool()
    def report(
        name: Annotated[str, Field(description="Report name, e.g. top_errors, unresolved_errors.", min_length=1)],
        params: Annotated[dict[str, Any] | None, Field(description="Report parameters.")] = None,
    ) -> Json:
        """Run one of kgmem's Cypher reports; rows as objects."""
        return {"rows": _plain(call(lambda m: m.report(name, **(params or {}))))}

    return server

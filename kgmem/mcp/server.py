"""The MCP server: kgmem's agent-facing API as MCP tools, over stdio or streamable HTTP.

Each tool is a thin typed wrapper over one :class:`~kgmem.KGMem` method — the schemas the
client sees come from the annotated signatures below (pydantic), results are JSON objects.
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

import dataclasses
import json
import logging
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Annotated, Any, Literal, TypeVar

from pydantic import Field, PlainValidator

from kgmem.analysis.schema import KNOWLEDGE_TYPES, MAX_CONTENT_CHARS
from kgmem.config import Settings, load_settings
from kgmem.errors import ErrorNotFound, KGMemError
from kgmem.kinds import BY_NAME
from kgmem.reports.library import list_reports
from kgmem.retrieval.config import PRESETS
from kgmem.retrieval.context import MIN_TOKENS
from kgmem.retrieval.feedback import LEVELS
from kgmem.retrieval.scope import MAX_K

log = logging.getLogger(__name__)

T = TypeVar("T")
Json = dict[str, Any]

# The tools' choices and limits come from kgmem's own registries, so the schemas a model sees
# cannot drift from what the client accepts (tests/unit/mcp compares them).
KindName = Literal[tuple(BY_NAME)]  # type: ignore[valid-type]
PresetName = Literal[tuple(PRESETS)]  # type: ignore[valid-type]
Outcome = Literal[tuple(LEVELS)]  # type: ignore[valid-type]
KnowledgeType = Literal[KNOWLEDGE_TYPES]  # type: ignore[valid-type]


def _optional_text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise ValueError("must be a string or null")


# An optional string the SDK must not touch: it JSON-decodes a str-or-null argument that looks like
# JSON ('{"code": 503}' would arrive as a dict, '[1]' as a list), which an error message or an answer
# often is. Annotated as plain `str` (the SDK leaves those alone), validated and documented as str | None.
OptionalText = Annotated[str, PlainValidator(_optional_text, json_schema_input_type=str | None)]
ReportName = Literal[tuple(spec.name for spec in list_reports())]  # type: ignore[valid-type]
ReportValue = str | int | float | bool
Kinds = Annotated[list[KindName] | None, Field(description="Kinds of hits (default all).")]
Preset = Annotated[PresetName | None, Field(description="Search preset (default: the configured one).")]
#: Argument names that would name a namespace: refused with a message saying why.
NAMESPACE_ARGS = frozenset({"ns", "namespace"})
_ID_CHARS = frozenset("0123456789abcdef")

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
                    raise ToolError(f"ValidationError: {scoped[0]}: not an argument; this server serves namespace "
                                    f"{self.namespace!r} only (set at start: kgmem mcp --ns)")
                if extra:
                    raise ToolError(f"ValidationError: {name}: unknown argument(s) {', '.join(map(repr, extra))}; "
                                    f"expected {', '.join(sorted(declared))}")
            return await super().call_tool(name, arguments, context)

        async def _declared(self, name: str) -> set[str] | None:
            for tool in await self.list_tools():
                if tool.name == name:
                    return set((tool.input_schema or {}).get("properties", {}))
            return None  # unknown tool: the SDK's own error names it

    return NamespaceBoundServer


def _error_id(value: str) -> str:
    """``value`` if it has the shape of an error id (what tool_result returns as ``id``)."""
    if len(value) != 32 or not set(value) <= _ID_CHARS:
        raise ErrorNotFound(f"error_id: {value!r} is not an error id (tool_result returns it as `id`: 32 hex digits)")
    return value


def build_server(settings: Settings | None = None, *, client_factory: Callable[[], Any] | None = None,
                 token: str | None = None, host: str = "127.0.0.1", port: int = 8765) -> Any:
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
        auth = {"token_verifier": StaticTokenVerifier(token),
                "auth": AuthSettings(issuer_url=url, resource_server_url=None)}
    server = _namespace_bound_server_class()(ns, "kgmem", instructions=INSTRUCTIONS, lifespan=lifespan, **auth)

    def call(fn: Callable[[Any], T]) -> T:
        try:
            return fn(holder.get())
        except KGMemError as exc:  # anticipated: the model reads the message and corrects its call
            raise ToolError(f"{type(exc).__name__}: {exc}") from exc

    def check(fn: Callable[[], T]) -> T:
        try:
            return fn()
        except KGMemError as exc:
            raise ToolError(f"{type(exc).__name__}: {exc}") from exc

    # -- learning ----------------------------------------------------------------------
    @server.tool()
    def tool_result(
        tool: Annotated[str, Field(description="Name of the tool that was called.", min_length=1)],
        params: Annotated[dict[str, Any] | None, Field(description="The call's parameters.")] = None,
        error: Annotated[OptionalText, Field(description="The error message if the call failed; omit on success.")] = None,
        session: Annotated[OptionalText, Field(description="Your session id; needed to learn fixes.")] = None,
    ) -> Json:
        """Report one tool call. On failure: the error's id and the known fixes, best first (apply one
        with auto_apply=true). On success after a failure in the session: the fix recorded for it."""
        # `params` are the reported call's own parameters (data, e.g. a kubectl namespace), not kgmem's.
        return _plain(call(lambda m: m.tool_result(tool, params, error=error, session=session, ns=ns)))

    @server.tool()
    def resolve(
        error_id: Annotated[str, Field(description="The id tool_result returned for the failure.", min_length=1)],
        fix: Annotated[str, Field(description="What fixed it, in a sentence.", min_length=1)],
        success: Annotated[bool, Field(description="False if the fix did not work.")] = True,
        session: Annotated[OptionalText, Field(description="The session the failure happened in.")] = None,
    ) -> Json:
        """Record what fixed a failure (or did not). A recovery already observed in the session is
        named, not counted twice."""
        check(lambda: _error_id(error_id))
        try:
            return _plain(holder.get().resolve(error_id, fix, success=success, session=session, ns=ns))
        except ErrorNotFound:
            raise ToolError(f"ErrorNotFound: error_id: no error {error_id!r} in this server's namespace; "
                            "pass the id tool_result returned") from None
        except KGMemError as exc:
            raise ToolError(f"{type(exc).__name__}: {exc}") from exc

    @server.tool()
    def correction(
        text: Annotated[str, Field(description="The user's correction, as they said it.", min_length=1,
                                   max_length=MAX_CONTENT_CHARS)],
        error_id: Annotated[OptionalText, Field(description="The failure it corrects, if any.")] = None,
    ) -> Json:
        """Store a user correction (trusted knowledge; with error_id also the user's fix, which
        outranks learnt fixes)."""
        if error_id is not None:  # checked before anything is stored: a bad id writes nothing
            check(lambda: _error_id(error_id))
            if not call(lambda m: m.graph.read("learning/error_by_id", ns=ns, id=error_id)):
                raise ToolError(f"ErrorNotFound: error_id: no error {error_id!r} in this server's namespace; "
                                "pass the id tool_result returned")
        out = call(lambda m: m.correction(text, error=error_id, ns=ns))
        return {"stored": True, "fix": _plain(out) if out is not None else None}

    # -- conversation ----------------------------------------------------------------------
    @server.tool()
    def turn(
        session: Annotated[str, Field(description="Conversation/session id.", min_length=1)],
        role: Annotated[str, Field(description="Who spoke: user, assistant, system, tool or a speaker name.", min_length=1)],
        text: Annotated[str, Field(description="What was said.", min_length=1)],
        ref: Annotated[OptionalText, Field(description="Your id for this turn (idempotency).")] = None,
    ) -> Json:
        """Store one conversation turn; knowledge is extracted from it in the background."""
        return {"id": call(lambda m: m.turn(session=session, role=role, text=text, ref=ref, ns=ns))}

    @server.tool()
    def end_session(session: Annotated[str, Field(description="The session to close.", min_length=1)]) -> Json:
        """Close a session: analyse what is pending and learn from the whole session."""
        call(lambda m: m.end_session(session, ns=ns))
        return {"closed": session}

    # -- retrieval ----------------------------------------------------------------------
    @server.tool()
    def search(
        query: Annotated[str, Field(description="What to look for.", min_length=1)],
        k: Annotated[int, Field(ge=1, le=MAX_K, description="Number of hits.")] = 10,
        session: Annotated[OptionalText, Field(description="Only this session's conversation turns.")] = None,
        kinds: Kinds = None,
        preset: Preset = None,
    ) -> Json:
        """Graph RAG search over everything kgmem knows; pass query_id and the hits you used to feedback."""
        return _plain(call(lambda m: m.search(query, k, session=session, kinds=kinds, preset=preset,
                                              ns=ns)).to_dict())

    @server.tool()
    def context(
        query: Annotated[str, Field(description="What the prompt is about.", min_length=1)],
        max_tokens: Annotated[int, Field(ge=MIN_TOKENS, description="Budget of the block.")] = 1000,
        session: Annotated[OptionalText, Field(description="Your session id: its conversation turns only, "
                                             "and feedback on this block updates the session's view.")] = None,
        k: Annotated[int, Field(ge=1, le=MAX_K, description="Hits to consider.")] = 10,
        kinds: Kinds = None,
        preset: Preset = None,
    ) -> Json:
        """A prompt-ready block of what kgmem knows about query, with numbered citations. Send your
        answer to feedback as `response`: its [n] citations credit the hits you used."""
        ctx = call(lambda m: m.context(query, max_tokens, session=session, k=k, kinds=kinds, preset=preset, ns=ns))
        return {"text": ctx.text, "confidence": ctx.confidence, "query_id": ctx.query_id,
                "citations": [_plain(h.to_dict()) for h in ctx.citations]}

    @server.tool()
    def feedback(
        query_id: Annotated[str, Field(description="query_id of a search or context.", min_length=1)],
        used: Annotated[list[str], Field(description="Ids of the hits you used.")] = [],  # noqa: B006 - schema default
        outcome: Annotated[Outcome | Annotated[float, Field(ge=-1.0, le=1.0)],
                           Field(description="How it went (or a number in [-1, 1]).")] = "included",
        response: Annotated[OptionalText, Field(description="Your answer built on a context block: its [n] "
                                              "citations name the hits you used.")] = None,
    ) -> Json:
        """Tell kgmem which hits helped (by id, or by the [n] citations in your response); later
        searches rank by it."""
        judgement = call(lambda m: m.feedback(query_id, used=used, outcome=outcome, response=response, ns=ns))
        # A retried call is safe: the query's first judgement stands and the repeat says counted=false.
        return {"recorded": True, "counted": judgement.counted, "target": judgement.target, "used": len(used)}

    # -- curated knowledge, reports -------------------------------------------------------
    @server.tool()
    def learnings_list(
        type: Annotated[KnowledgeType | None, Field(description="Only this type of knowledge.")] = None,
        min_confidence: Annotated[float, Field(ge=0.0, le=1.0)] = 0.0,
        include_inactive: bool = False,
    ) -> Json:
        """Knowledge items kgmem has learnt, most trusted first."""
        items = call(lambda m: m.learnings(type=type, min_confidence=min_confidence,
                                           include_inactive=include_inactive, ns=ns))
        return {"items": _plain(items)}

    @server.tool()
    def learnings_add(
        content: Annotated[str, Field(description="The knowledge, one statement.", min_length=1,
                                      max_length=MAX_CONTENT_CHARS)],
        type: Annotated[KnowledgeType, Field(description="What kind of knowledge it is.")] = "fact",
    ) -> Json:
        """Add a knowledge item by hand (confidence 1.0, never decayed)."""
        return _plain(call(lambda m: m.add_knowledge(content, type, ns=ns)))

    @server.tool()
    def report(
        name: Annotated[ReportName, Field(description="The report to run.")],
        params: Annotated[dict[str, ReportValue] | None,
                          Field(description="Report parameters (not the namespace: the server's own is used).")] = None,
    ) -> Json:
        """Run one of kgmem's Cypher reports on this server's namespace; rows as objects."""
        given = dict(params or {})
        named = sorted(p for p in given if p.strip().lower() in NAMESPACE_ARGS)
        if named:
            raise ToolError(f"ValidationError: params.{named[0]}: the namespace is not a report parameter; "
                            f"this server serves its own namespace only")
        return {"rows": _plain(call(lambda m: m.report(name, ns=ns, **given)))}

    return server

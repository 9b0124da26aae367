"""kgmem's public operations, declared once: name, parameters (type, default, how a client takes
them), limits, the literals a parameter accepts — taken from the registries that define them —
and the surfaces that expose each operation.

The surfaces use the declaration in two ways:

* the MCP server (:mod:`kgmem.mcp.server`) **builds** its tools from it: each tool's schema —
  names, types, defaults, limits, enums, descriptions — is generated from the :class:`Operation`,
  so an operation declared with ``MCP`` in its surfaces is a tool without further code (a tool
  whose answer is not the client's result as JSON adds a result shaper there);
* :class:`kgmem.KGMem` and :class:`kgmem.AsyncKGMem` are written by hand — readable signatures,
  docstrings and type hints an editor can show — and **checked** against it by
  ``tests/unit/test_api.py``: every declared operation is a method of each client that exposes it
  (a coroutine function in the async one) with the declared parameter names, kinds and defaults,
  and every public method is declared.

Adding an operation: declare it here (with its surfaces), write the method in the clients
(the test names what is missing or different), and it is an MCP tool if ``MCP`` is among its
surfaces.
"""

from __future__ import annotations

import enum
import inspect
from dataclasses import dataclass, field
from typing import Any

from kgmem.analysis.schema import KNOWLEDGE_TYPES, MAX_CONTENT_CHARS
from kgmem.kinds import BY_NAME
from kgmem.reports.library import list_reports
from kgmem.retrieval.config import PRESETS
from kgmem.retrieval.context import MIN_TOKENS
from kgmem.retrieval.feedback import LEVELS
from kgmem.retrieval.scope import MAX_K

#: A parameter without a default.
REQUIRED: Any = inspect.Parameter.empty

SYNC, ASYNC, MCP = "sync", "async", "mcp"
CLIENTS = frozenset({SYNC, ASYNC})
EVERYWHERE = frozenset({SYNC, ASYNC, MCP})

#: The literals, from the registries that define them (a new kind, preset, level, type or report is
#: accepted everywhere at once).
KIND_NAMES: tuple[str, ...] = tuple(BY_NAME)
PRESET_NAMES: tuple[str, ...] = tuple(PRESETS)
FEEDBACK_LEVELS: tuple[str, ...] = tuple(LEVELS)
KNOWLEDGE_TYPE_NAMES: tuple[str, ...] = tuple(KNOWLEDGE_TYPES)


def report_names() -> tuple[str, ...]:
    """The Cypher reports (``cypher/reports/*.cypher``), read from the report library."""
    return tuple(spec.name for spec in list_reports())


class Pass(enum.Enum):
    """How a client method takes a parameter."""

    POSITIONAL = "positional or keyword"
    KEYWORD = "keyword-only"
    #: a keyword passed through the method's ``**kwargs`` (the operation's ``forwards``), e.g.
    #: ``context(..., k=5)`` reaching the search
    FORWARDED = "through **kwargs"
    #: a mapping the method takes as ``**name`` (``report(name, **params)``); MCP takes the mapping
    SPREAD = "spread as **kwargs"


@dataclass(frozen=True)
class Param:
    """One parameter of an operation.

    ``type`` is the JSON-level type an MCP tool accepts (the clients may accept richer values: an
    ``Observation`` where an error id is declared, an exception where an error message is).
    ``ge``/``le`` bound a number, ``min_length``/``max_length`` a string, ``choices`` are the
    literals a string (or each item of a list) may take. ``mcp=False``: not an MCP argument;
    ``mcp_name``: its MCP name when it differs (an id where the client takes an object or an id).
    """

    name: str
    type: Any
    default: Any = REQUIRED
    kind: Pass = Pass.POSITIONAL
    doc: str = ""
    ge: float | None = None
    le: float | None = None
    min_length: int | None = None
    max_length: int | None = None
    choices: tuple[Any, ...] | None = None
    mcp: bool = True
    mcp_name: str | None = None

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    @property
    def wire_name(self) -> str:
        """The argument's name on MCP."""
        return self.mcp_name or self.name


@dataclass(frozen=True)
class Operation:
    """One public operation: the client method ``name`` and, with ``MCP`` in ``surfaces``, the MCP
    tool ``tool`` (default: the same name) described by ``doc``."""

    name: str
    params: tuple[Param, ...]
    doc: str
    surfaces: frozenset[str] = EVERYWHERE
    tool: str | None = None
    #: the name of the client's ``**kwargs`` parameter the FORWARDED parameters go through
    forwards: str | None = None
    group: str = field(default="", compare=False)

    @property
    def tool_name(self) -> str:
        return self.tool or self.name

    @property
    def mcp_params(self) -> tuple[Param, ...]:
        """The parameters an MCP tool takes (never the namespace: the server pins its own)."""
        return tuple(p for p in self.params if p.mcp)

    def param(self, name: str) -> Param:
        return next(p for p in self.params if p.name == name)


def _ns() -> Param:
    # The namespace of a call: the client's by default. Never an MCP argument: a server serves the
    # namespace it was started with.
    return Param("ns", str, None, Pass.KEYWORD, "Namespace (default: the client's).", min_length=1, mcp=False)


def _query(doc: str) -> Param:
    return Param("query", str, doc=doc, min_length=1)


def _k(doc: str, kind: Pass = Pass.POSITIONAL) -> Param:
    return Param("k", int, 10, kind, doc, ge=1, le=MAX_K)


def _kinds(kind: Pass) -> Param:
    return Param("kinds", list[str], None, kind, "Kinds of hits (default all).", choices=KIND_NAMES)


def _preset(kind: Pass) -> Param:
    return Param("preset", str, None, kind, "Search preset (default: the configured one).", choices=PRESET_NAMES)


def _as_of(kind: Pass) -> Param:
    # Clients also take a datetime; on MCP (and the CLI) an ISO-8601 string.
    return Param(
        "as_of",
        str,
        None,
        kind,
        "ISO-8601 date or time: answer with what was valid then (default: now — superseded knowledge left out).",
        min_length=1,
    )


def _content(name: str, doc: str, kind: Pass = Pass.POSITIONAL) -> Param:
    return Param(name, str, doc=doc, kind=kind, min_length=1, max_length=MAX_CONTENT_CHARS)


K, P, F, S = Pass.KEYWORD, Pass.POSITIONAL, Pass.FORWARDED, Pass.SPREAD

OPERATIONS: tuple[Operation, ...] = (
    # -- learning (kgmem/learning) -----------------------------------------------------------
    Operation(
        "tool_result",
        (
            Param("tool", str, doc="Name of the tool that was called.", min_length=1),
            Param("params", dict[str, Any], None, P, "The call's parameters."),
            Param("result", Any, None, K, "The call's result (not stored).", mcp=False),
            Param("error", str, None, K, "The error message if the call failed; omit on success."),
            Param("session", str, None, K, "Your session id; needed to learn fixes."),
            _ns(),
        ),
        "Report one tool call. On failure: the error's id and the known fixes, best first (apply one "
        "with auto_apply=true). On success after a failure in the session: the fix recorded for it.",
        group="learning",
    ),
    Operation(
        "tool_results",
        (
            Param("events", list[dict[str, Any]], doc="Tool outcomes: tool, params, error, session, ts."),
            _ns(),
            Param("index", bool, True, K, "Embed new error patterns now (False: on their next occurrence)."),
        ),
        "Record many tool outcomes in one transaction, in order.",
        CLIENTS,
        group="learning",
    ),
    Operation(
        "resolve",
        (
            Param("error", str, doc="The id tool_result returned for the failure.", min_length=1, mcp_name="error_id"),
            Param("fix", str, doc="What fixed it, in a sentence.", min_length=1),
            Param("success", bool, True, K, "False if the fix did not work."),
            Param("tool", str, None, K, "The tool, when the error is given as a message.", mcp=False),
            Param("session", str, None, K, "The session the failure happened in."),
            Param(
                "occurrence",
                str,
                None,
                K,
                "The occurrence tool_result returned for the failure: "
                "a repeat with the same fix counts once (omitted: counts each time).",
            ),
            _ns(),
        ),
        "Record what fixed a failure (or did not). A recovery already observed in the session is "
        "named, not counted twice.",
        group="learning",
    ),
    Operation(
        "fix_applied",
        (
            Param("error", str, doc="The failure (an Observation or its id, or a message with tool)."),
            Param("fix", str, doc="The fix that was applied."),
            Param("success", bool, kind=K, doc="Whether it worked."),
            Param("tool", str, None, K),
            Param("session", str, None, K),
            Param(
                "occurrence",
                str,
                None,
                K,
                "The occurrence tool_result returned for the failure: "
                "a repeat with the same fix counts once (omitted: counts each time).",
            ),
            _ns(),
        ),
        "Report the outcome of applying a suggested fix.",
        CLIENTS,
        group="learning",
    ),
    Operation(
        "correction",
        (
            _content("text", "The user's correction, as they said it."),
            Param("error", str, None, K, "The failure it corrects, if any.", mcp_name="error_id"),
            Param("tool", str, None, K, "The tool, when the error is given as a message.", mcp=False),
            _ns(),
        ),
        "Store a user correction (trusted knowledge; with error_id also the user's fix, which outranks learnt fixes).",
        group="learning",
    ),
    Operation(
        "index_errors",
        (_ns(),),
        "Embed and link the error patterns a backfill left without vectors.",
        CLIENTS,
        group="learning",
    ),
    Operation(
        "replay_spool",
        (),
        "Replay the events spooled while Neo4j was unreachable (exactly once).",
        CLIENTS,
        group="learning",
    ),
    Operation("flush", (), "Write what the client holds back now.", CLIENTS, group="learning"),
    # -- retrieval (kgmem/retrieval) ---------------------------------------------------------
    Operation(
        "search",
        (
            _query("What to look for."),
            _k("Number of hits."),
            _ns(),
            Param("session", str, None, K, "Only this session's conversation turns."),
            _kinds(K),
            _preset(K),
            Param("explain", bool, False, K, "Time every stage into the result.", mcp=False),
            _as_of(K),
        ),
        "Graph RAG search over everything kgmem knows; pass query_id and the hits you used to feedback.",
        group="retrieval",
    ),
    Operation(
        "context",
        (
            _query("What the prompt is about."),
            Param("max_tokens", int, 1000, P, "Budget of the block.", ge=MIN_TOKENS),
            _ns(),
            Param(
                "session",
                str,
                None,
                F,
                "Your session id: its conversation turns only, and feedback on this block updates the session's view.",
            ),
            _k("Hits to consider.", F),
            _kinds(F),
            _preset(F),
            _as_of(F),
        ),
        "A prompt-ready block of what kgmem knows about query, with numbered citations. Send your "
        "answer to feedback as `response`: its [n] citations credit the hits you used.",
        forwards="search_kwargs",
        group="retrieval",
    ),
    Operation(
        "feedback",
        (
            Param("query_id", str, doc="query_id of a search or context.", min_length=1),
            Param("used", list[str], (), K, "Ids of the hits you used."),
            Param(
                "outcome",
                str | float,
                "included",
                K,
                "How it went (or a number in [-1, 1]).",
                ge=-1.0,
                le=1.0,
                choices=FEEDBACK_LEVELS,
            ),
            Param(
                "response",
                str,
                None,
                K,
                "Your answer built on a context block: its [n] citations name the hits you used.",
            ),
            _ns(),
        ),
        "Tell kgmem which hits helped (by id, or by the [n] citations in your response); later searches rank by it.",
        group="retrieval",
    ),
    Operation(
        "ingest",
        (
            Param("source", str, doc="A JSONL file (or, in Python, an iterable of event dicts)."),
            _ns(),
            Param("batch_size", int, 256, K, "Events per transaction.", ge=1),
            Param("progress", bool, False, K, "Show a progress bar."),
            Param("analyze", bool, False, K, "Run conversation analysis on the ingested sessions."),
        ),
        "Bulk-load turns, tool results, knowledge and session ends.",
        CLIENTS,
        group="ingest",
    ),
    # -- conversation and knowledge (kgmem/conversation, kgmem/analysis) --------------------
    Operation(
        "turn",
        (
            Param("session", str, kind=K, doc="Conversation/session id.", min_length=1),
            Param("role", str, kind=K, doc="Who spoke: user, assistant, system, tool or a speaker name.", min_length=1),
            Param("text", str, kind=K, doc="What was said.", min_length=1),
            Param("ref", str, None, K, "Your id for this turn (idempotency)."),
            Param("ts", str, None, K, "When it was said, ISO-8601 (default: now).", mcp=False),
            _ns(),
        ),
        "Store one conversation turn; knowledge is extracted from it in the background.",
        group="conversation",
    ),
    Operation(
        "end_session",
        (
            Param("session", str, doc="The session to close.", min_length=1),
            _ns(),
        ),
        "Close a session: analyse what is pending and learn from the whole session.",
        group="conversation",
    ),
    Operation(
        "add_knowledge",
        (
            _content("content", "The knowledge, one statement."),
            Param("type", str, "fact", P, "What kind of knowledge it is.", choices=KNOWLEDGE_TYPE_NAMES),
            _ns(),
        ),
        "Add a knowledge item by hand (confidence 1.0, never decayed); judged against stored items: a paraphrase "
        "promotes the stored one, a contradiction supersedes it.",
        tool="learnings_add",
        group="conversation",
    ),
    Operation(
        "learnings",
        (
            Param("type", str, None, K, "Only this type of knowledge.", choices=KNOWLEDGE_TYPE_NAMES),
            Param("min_confidence", float, 0.0, K, "Only items at least this trusted.", ge=0.0, le=1.0),
            Param("include_inactive", bool, False, K, "Include removed (inactive) items."),
            _ns(),
        ),
        "Knowledge items kgmem has learnt, most trusted first.",
        tool="learnings_list",
        group="conversation",
    ),
    Operation(
        "history",
        (
            Param("id", str, doc="A knowledge item's id (a search hit's or learnings_list's).", min_length=1),
            _ns(),
        ),
        "How a knowledge item changed: it and the items it superseded or that superseded it, oldest first, "
        "each with valid_from and valid_until.",
        tool="learnings_history",
        group="conversation",
    ),
    Operation(
        "wait_for_analysis",
        (Param("timeout", float, None, P, "Seconds to wait at most (default: as long as it takes)."),),
        "Wait until queued turns are stored and queued conversation analyses have run.",
        CLIENTS,
        group="conversation",
    ),
    Operation(
        "analysis_stats",
        (_ns(),),
        "Conversation-analysis counters, extractor in use, token usage, queue.",
        CLIENTS,
        group="conversation",
    ),
    # -- call graph and reports (kgmem/callgraph, kgmem/reports) ------------------------------
    Operation(
        "record_calls",
        (
            Param("calls", list[list[str]], doc="Call edges: [caller_qualname, callee_qualname] pairs."),
            _ns(),
        ),
        "Record call edges found by static analysis.",
        CLIENTS,
        group="callgraph",
    ),
    Operation(
        "observe_changes",
        (
            Param("functions_changed", list[str], doc="Functions one observation changed together."),
            Param("session", str, None, K),
            _ns(),
        ),
        "Confirm call edges among functions changed together, or add observation edges.",
        CLIENTS,
        group="callgraph",
    ),
    Operation(
        "report",
        (
            Param("name", str, doc="The report to run.", choices=report_names()),
            _ns(),
            Param(
                "params",
                dict[str, str | int | float | bool],
                None,
                S,
                "Report parameters (not the namespace: the server's own is used).",
            ),
        ),
        "Run one of kgmem's Cypher reports on this server's namespace; rows as objects.",
        group="reports",
    ),
    # -- forgetting (kgmem/forget) ------------------------------------------------------------
    Operation(
        "forget",
        (
            Param(
                "id", str, None, K, "One item: a turn, knowledge item, error pattern, fix or entity id.", min_length=1
            ),
            Param("session", str, None, K, "A conversation: its turns and what only it taught.", min_length=1),
            Param("entity", str, None, K, "Everything about one named entity or person.", min_length=1),
            Param("everything", bool, False, K, "The whole namespace.", mcp=False),
            Param("dry_run", bool, False, K, "Only count what would be erased, per store."),
            Param("by", str, None, K, "Who asks (the audit trail; default the surface and user).", mcp=False),
            _ns(),
        ),
        "Erase what the user asks to be forgotten (exactly one of id, session, entity) from every store; "
        "returns the counts erased per store (dry_run: what would be). It cannot be undone.",
        group="forget",
    ),
)

#: Operations by client method name.
OPERATIONS_BY_NAME: dict[str, Operation] = {op.name: op for op in OPERATIONS}


def operation(name: str) -> Operation:
    """The declared operation ``name`` (a client method name)."""
    return OPERATIONS_BY_NAME[name]


def exposed_on(surface: str) -> tuple[Operation, ...]:
    """The operations ``surface`` (``SYNC``, ``ASYNC`` or ``MCP``) exposes, in declaration order."""
    return tuple(op for op in OPERATIONS if surface in op.surfaces)

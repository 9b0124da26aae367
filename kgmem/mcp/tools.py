"""The MCP tools, generated from the API declaration (:mod:`kgmem.api`).

For every operation with ``MCP`` among its surfaces, :func:`register` adds one tool: its
schema comes from the declared parameters (:func:`annotation`: type, default, limits, the
registry literals as enums, the description), its call is the client method with the declared
arguments and the server's namespace, its answer the result as JSON — or, for the tools whose
answer is shaped for a model (an id, a closed session, a context block), the shaper in
:data:`SHAPERS`. :data:`GUARDS` hold the checks a tool makes before it calls the client (an
error id's shape, a report parameter that names a namespace).
"""

from __future__ import annotations

import dataclasses
import inspect
import json
from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import Field, PlainValidator

from kgmem.api import MCP, Operation, Param, Pass, exposed_on
from kgmem.errors import ErrorNotFound, KGMemError, ValidationError

Json = dict[str, Any]
#: Argument names that would name a namespace: refused with a message saying why.
NAMESPACE_ARGS = frozenset({"ns", "namespace"})
_ID_CHARS = frozenset("0123456789abcdef")


def _optional_text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise ValueError("must be a string or null")


# An optional string the SDK must not touch: it JSON-decodes a str-or-null argument that looks like
# JSON ('{"code": 503}' would arrive as a dict, '[1]' as a list), which an error message or an answer
# often is. Annotated as plain `str` (the SDK leaves those alone), validated and documented as str | None.
OptionalText = Annotated[str, PlainValidator(_optional_text, json_schema_input_type=str | None)]


def _limits(p: Param) -> dict[str, Any]:
    return {
        k: v
        for k, v in (("ge", p.ge), ("le", p.le), ("min_length", p.min_length), ("max_length", p.max_length))
        if v is not None
    }


def annotation(p: Param) -> Any:
    """The pydantic annotation of a declared parameter: its MCP schema and validation."""
    info: dict[str, Any] = {"description": p.doc} if p.doc else {}
    optional = p.default is None
    if p.choices is not None:
        # Built at run time from the declared choices: no static type can name it.
        literal = Literal[p.choices]  # type: ignore[name-defined]
        if p.type == list[str]:
            base: Any = list[literal]
        elif p.type == (str | float):  # a level by name, or a number within the limits
            base = literal | Annotated[float, Field(**_limits(p))]
        else:
            base = literal
        return Annotated[base | None if optional else base, Field(**info)]
    if p.type is str and optional:
        return Annotated[OptionalText, Field(**info, **_limits(p))]
    return Annotated[p.type | None if optional else p.type, Field(**info, **_limits(p))]


def _wire_default(p: Param) -> Any:
    if p.required:
        return inspect.Parameter.empty
    return list(p.default) if isinstance(p.default, tuple) else p.default  # JSON has lists


def signature(op: Operation) -> inspect.Signature:
    """The tool function's signature (the SDK derives the tool's input schema from it)."""
    return inspect.Signature(
        [
            inspect.Parameter(
                p.wire_name, inspect.Parameter.KEYWORD_ONLY, default=_wire_default(p), annotation=annotation(p)
            )
            for p in op.mcp_params
        ],
        return_annotation=Json,
    )


def plain(value: Any) -> Any:
    """A JSON-ready copy (dataclasses, tuples, Neo4j temporal values → str)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.asdict(value)
    return json.loads(json.dumps(value, default=str))


def error_id(value: str) -> str:
    """``value`` if it has the shape of an error id (what tool_result returns as ``id``)."""
    if len(value) != 32 or not set(value) <= _ID_CHARS:
        raise ErrorNotFound(f"error_id: {value!r} is not an error id (tool_result returns it as `id`: 32 hex digits)")
    return value


def _unknown_error(value: str) -> ErrorNotFound:
    return ErrorNotFound(f"error_id: no error {value!r} in this server's namespace; pass the id tool_result returned")


@dataclasses.dataclass
class Call:
    """One tool call: the operation, its validated arguments (client names), the pinned namespace."""

    op: Operation
    args: dict[str, Any]
    ns: str
    client: Callable[[], Any]

    def invoke(self) -> Any:
        """The client method with the declared arguments; the namespace is always the server's."""
        kwargs: dict[str, Any] = {}
        for p in self.op.params:
            if p.name == "ns":
                kwargs["ns"] = self.ns
            elif p.kind is Pass.SPREAD:
                kwargs.update(self.args.get(p.name) or {})
            elif p.name in self.args:
                kwargs[p.name] = self.args[p.name]
        return getattr(self.client(), self.op.name)(**kwargs)


def _resolve(call: Call) -> Json:
    error_id(call.args["error"])
    try:
        return plain(call.invoke())
    except ErrorNotFound:
        raise _unknown_error(call.args["error"]) from None


def _correction(call: Call) -> Json:
    given = call.args["error"]
    if given is not None:  # checked before anything is stored: a bad id writes nothing
        error_id(given)
        if not call.client().graph.read("learning/error_by_id", ns=call.ns, id=given):
            raise _unknown_error(given)
    out = call.invoke()
    return {"stored": True, "fix": plain(out) if out is not None else None}


def _report(call: Call) -> Json:
    named = sorted(p for p in (call.args.get("params") or {}) if p.strip().lower() in NAMESPACE_ARGS)
    if named:
        raise ValidationError(
            f"params.{named[0]}: the namespace is not a report parameter; this server serves its own namespace only"
        )
    return {"rows": plain(call.invoke())}


def _context(call: Call) -> Json:
    ctx = call.invoke()
    return {
        "text": ctx.text,
        "confidence": ctx.confidence,
        "query_id": ctx.query_id,
        "citations": [plain(h.to_dict()) for h in ctx.citations],
    }


def _feedback(call: Call) -> Json:
    judgement = call.invoke()
    # A retried call is safe: the query's first judgement stands and the repeat says counted=false.
    return {"recorded": True, "counted": judgement.counted, "target": judgement.target, "used": len(call.args["used"])}


def _end_session(call: Call) -> Json:
    call.invoke()
    return {"closed": call.args["session"]}


def _forget(call: Call) -> Json:
    # Who asked is recorded in the audit trail; the scope checks are the client's.
    call.args.setdefault("by", "mcp")
    return plain(call.invoke().to_dict())


def forget_operation(op: Operation, everything: bool) -> Operation:
    """The forget tool's declaration: ``everything`` is an argument only on a server started with
    ``kgmem mcp --allow-forget-everything`` (otherwise no call can name the whole namespace)."""
    if not everything:
        return op
    params = tuple(dataclasses.replace(p, mcp=True) if p.name == "everything" else p for p in op.params)
    return dataclasses.replace(op, params=params)


#: The tools whose answer is not the client's result as JSON (or that check their arguments first).
SHAPERS: dict[str, Callable[[Call], Json]] = {
    "resolve": _resolve,
    "correction": _correction,
    "turn": lambda call: {"id": call.invoke()},
    "end_session": _end_session,
    "search": lambda call: plain(call.invoke().to_dict()),
    "context": _context,
    "feedback": _feedback,
    "learnings": lambda call: {"items": plain(call.invoke())},
    "history": lambda call: {"items": plain(call.invoke())},  # the chain, oldest first
    "report": _report,
    "forget": _forget,
}


def tool_function(op: Operation, run: Callable[[Operation, dict[str, Any]], Json]) -> Callable[..., Json]:
    """A (sync: the SDK runs it on a worker thread) function the SDK registers as the tool of ``op``."""
    by_wire = {p.wire_name: p.name for p in op.mcp_params}

    def tool(**arguments: Any) -> Json:
        return run(op, {by_wire[k]: v for k, v in arguments.items()})

    tool.__name__ = op.tool_name
    tool.__doc__ = op.doc
    tool.__signature__ = signature(op)  # type: ignore[attr-defined]
    return tool


def register(
    server: Any,
    client: Callable[[], Any],
    ns: str,
    error: Callable[[Exception], Exception],
    *,
    forget_everything: bool = False,
) -> None:
    """Add a tool to ``server`` for every operation MCP exposes; ``client`` gives the (lazily built)
    client, ``ns`` is the pinned namespace, ``error`` turns kgmem's errors into tool errors;
    ``forget_everything``: the forget tool may erase the whole namespace."""

    def run(op: Operation, args: dict[str, Any]) -> Json:
        try:
            return SHAPERS.get(op.name, lambda call: plain(call.invoke()))(Call(op, args, ns, client))
        except KGMemError as exc:  # anticipated: the model reads the message and corrects its call
            raise error(exc) from exc

    for op in exposed_on(MCP):
        if op.name == "forget":
            op = forget_operation(op, forget_everything)
        server.add_tool(tool_function(op, run), name=op.tool_name, description=op.doc)

"""neomodel models of kgmem's graph, for batch jobs and analysts who want typed, read-only Python
access (``ErrorPattern.nodes.filter(...)``, ``error.resolved_by.all()``).

kgmem itself never writes through these models: every write is a named Cypher file
(``cypher/``), and the schema is ``cypher/schema.cypher`` applied by ``kgmem init`` — not
neomodel's ``install_all_labels`` (it would add single-property indexes of its own, and
knows nothing of kgmem's composite ``(ns, id)`` constraints or the full-text index).

Conventions, as kgmem writes the graph:

- Every node has ``ns`` (its namespace) and ``id`` (deterministic, unique per namespace;
  ``uid`` here, because neomodel reserves the attribute ``id``). One database holds many
  namespaces: start every query with :func:`for_namespace`. Relationships never cross a
  namespace, so traversals from a namespaced node stay inside it.
- Timestamps are ISO-8601 UTC strings (``"2026-11-25T17:50:38.123456+00:00"``), compared as
  text; they are :class:`~neomodel.StringProperty` here, not neomodel's epoch-based
  ``DateTimeProperty``.
- Only the properties kgmem writes are declared; neomodel ignores any other on inflation.

Connect with :func:`bind`, which hands neomodel the driver kgmem already built
(:func:`kgmem.graph.connect`) instead of a second connection string. ``tests/unit/graph/
test_models_drift.py`` checks these models against ``cypher/schema.cypher``, the export
allow-list (``kgmem/maintenance/allowlist.py``: every label, relationship type and its
endpoints) and the kind registry (``kgmem/kinds.py``), so they cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

import neo4j
from neomodel import (
    ArrayProperty,
    BooleanProperty,
    FloatProperty,
    IntegerProperty,
    NodeSet,
    Relationship,
    RelationshipFrom,
    RelationshipTo,
    StringProperty,
    StructuredNode,
    StructuredRel,
    db,
    get_config,
)

from kgmem.graph.keys import check_namespace

__all__ = [
    "MODELS",
    "Calls",
    "Concept",
    "Contradicts",
    "Entity",
    "ErrorPattern",
    "Fix",
    "Function",
    "InSession",
    "Knowledge",
    "KgmemNode",
    "Mentions",
    "Message",
    "ModelEdge",
    "RelatesTo",
    "ResolvedBy",
    "Searchable",
    "Session",
    "SimilarTo",
    "Tool",
    "bind",
    "edges",
    "for_namespace",
    "stored_properties",
]

N = TypeVar("N", bound="KgmemNode")
# Relationship targets by qualified name: neomodel resolves a bare class name through the caller's
# stack frames, which finds the wrong class when another module defines the same name.
_M = __name__ + "."


def bind(driver: neo4j.Driver, database: str = "neo4j") -> None:
    """Point neomodel at ``driver`` (the one :func:`kgmem.graph.connect` built) and ``database``.

    neomodel keeps one process-wide connection: call this once at the start of a batch job or
    notebook. The driver stays the caller's — close it yourself when done (neomodel's
    ``db.close_connection()`` would close it too).
    """
    get_config().database_name = database
    db.set_connection(driver=driver)


def for_namespace(model: type[N], ns: str) -> NodeSet:
    """The nodes of ``model`` in namespace ``ns`` — where every batch-job query should start.

    Raises :class:`~kgmem.errors.ValidationError` for an empty namespace (a subclass for an over-long one)."""
    return model.nodes.filter(ns=check_namespace(ns))


# -- relationship models (properties as the Cypher writers set them) ---------------------------


class ResolvedBy(StructuredRel):
    """``(ErrorPattern)-[:RESOLVED_BY]->(Fix)``: how well the fix works on this error."""

    confidence = FloatProperty()
    successes = IntegerProperty()
    failures = IntegerProperty()
    alpha = FloatProperty()
    beta = FloatProperty()
    # neomodel reserves `source` on relationships: the stored property `source` is `origin` here.
    origin = StringProperty(db_property="source")  # observed / user / agent ...
    last_used = StringProperty()
    propagated_at = StringProperty()
    created_at = StringProperty()
    updated_at = StringProperty()


class InSession(StructuredRel):
    """``(ErrorPattern)-[:IN_SESSION]->(Session)``: occurrences in one session and its recovery state."""

    count = IntegerProperty()
    first_seen = StringProperty()
    last_seen = StringProperty()
    open = BooleanProperty()
    open_params = StringProperty()
    open_at = StringProperty()
    declared_fix = StringProperty()
    recovery_fix = StringProperty()
    held = BooleanProperty()
    recovered_at = StringProperty()


class SimilarTo(StructuredRel):
    """``(ErrorPattern)-[:SIMILAR_TO]->(ErrorPattern)``: embedding similarity and the evidence for the link."""

    score = FloatProperty()
    confirmed = IntegerProperty()
    contradicted = IntegerProperty()
    confirmed_at = StringProperty()
    rejected_at = StringProperty()
    created_at = StringProperty()
    updated_at = StringProperty()


class Contradicts(StructuredRel):
    """``(newer Knowledge)-[:CONTRADICTS]->(older Knowledge)``."""

    sessions = ArrayProperty(StringProperty())
    created_at = StringProperty()
    updated_at = StringProperty()


class SupersededBy(StructuredRel):
    """``(older Knowledge)-[:SUPERSEDED_BY]->(newer Knowledge)``: the newer statement replaced it."""

    created_at = StringProperty()
    at = StringProperty()  # the newer item's valid_from: when the old one stopped being valid


class RelatesTo(StructuredRel):
    """``(Entity)-[:RELATES_TO]->(Entity)``: one extracted triple (the predicate is data, never a type)."""

    predicate = StringProperty()
    fact = StringProperty()
    knowledge_id = StringProperty()
    confidence = FloatProperty()
    created_at = StringProperty()
    updated_at = StringProperty()


class Calls(StructuredRel):
    """``(Function)-[:CALLS]->(Function)``: a call-graph edge from static analysis or observation."""

    confidence = FloatProperty()
    origin = StringProperty(db_property="source")  # ast / observation (`source` is reserved by neomodel)
    times_confirmed = IntegerProperty()
    last_confirmed = StringProperty()
    last_session = StringProperty()
    decay_steps = IntegerProperty()
    created_at = StringProperty()


class Mentions(StructuredRel):
    """``(memory)-[:MENTIONS]->(Concept)`` (and the older ``(Message)-[:MENTIONS]->(Entity)``)."""

    created_at = StringProperty()


# -- node models -------------------------------------------------------------------------------


class KgmemNode(StructuredNode):
    """What every kgmem node has: its namespace and its id within it."""

    __abstract_node__ = True

    ns = StringProperty(required=True)
    uid = StringProperty(required=True, db_property="id")
    created_at = StringProperty()
    updated_at = StringProperty()


class Searchable(KgmemNode):
    """A searchable kind (kgmem/kinds.py): embedded in Chroma, returned by search, judged by feedback."""

    __abstract_node__ = True

    alpha = FloatProperty()  # retrieval feedback: a Beta posterior per hit
    beta = FloatProperty()
    feedback_count = IntegerProperty()
    last_used = StringProperty()
    ns_key = StringProperty()  # the full-text index's exact namespace token
    vector_pending = BooleanProperty()  # its vector is not in Chroma yet


class Tool(KgmemNode):
    """A tool an agent called (``bash``, ``http`` ...)."""

    name = StringProperty()
    errors = RelationshipFrom(_M + "ErrorPattern", "CAUSED_BY")


class Session(KgmemNode):
    """An agent session (``key`` is the caller's session name)."""

    key = StringProperty()
    started_at = StringProperty()
    ended_at = StringProperty()
    turns = IntegerProperty()
    tail = StringProperty()  # id of the last Message
    errors = RelationshipFrom(_M + "ErrorPattern", "IN_SESSION", model=InSession)
    messages = RelationshipFrom(_M + "Message", "PART_OF")
    knowledge = RelationshipFrom(_M + "Knowledge", "FROM_SESSION")


class ErrorPattern(Searchable):
    """A normalised error message of one tool, with its occurrence counters."""

    tool = StringProperty()
    category = StringProperty()
    pattern = StringProperty()
    signature = StringProperty()  # the normalised short form that is embedded
    template = StringProperty()
    keys = StringProperty()
    example = StringProperty()
    occurrences = IntegerProperty()
    first_seen = StringProperty()
    last_seen = StringProperty()
    caused_by = RelationshipTo(_M + "Tool", "CAUSED_BY")
    in_session = RelationshipTo(_M + "Session", "IN_SESSION", model=InSession)
    resolved_by = RelationshipTo(_M + "Fix", "RESOLVED_BY", model=ResolvedBy)
    similar_to = RelationshipTo(_M + "ErrorPattern", "SIMILAR_TO", model=SimilarTo)
    similar = Relationship(_M + "ErrorPattern", "SIMILAR_TO", model=SimilarTo)  # either direction
    concepts = RelationshipTo(_M + "Concept", "MENTIONS", model=Mentions)


class Fix(Searchable):
    """A fix (``description``) that resolved one or more error patterns."""

    description = StringProperty()
    source = StringProperty()
    resolves = RelationshipFrom(_M + "ErrorPattern", "RESOLVED_BY", model=ResolvedBy)
    concepts = RelationshipTo(_M + "Concept", "MENTIONS", model=Mentions)


class Knowledge(Searchable):
    """A fact, pattern, correction or preference, with its confidence."""

    type = StringProperty()  # fact / pattern / correction / preference
    content = StringProperty()
    norm = StringProperty()  # normalised content (exact-text dedup)
    confidence = FloatProperty()
    extracted_confidence = FloatProperty()
    times_seen = IntegerProperty()
    source = StringProperty()
    source_sessions = ArrayProperty(StringProperty())
    is_manual = BooleanProperty()
    is_active = BooleanProperty()
    subject = StringProperty()
    predicate = StringProperty()
    object = StringProperty()
    last_seen_at = StringProperty()
    decayed_at = StringProperty()
    edited_at = StringProperty()
    valid_from = StringProperty()  # when it was said (its turn's or event's ts)
    valid_until = StringProperty()  # when a newer statement replaced it (None: still valid)
    recorded_at = StringProperty()  # when kgmem stored it
    superseded_at = StringProperty()  # when kgmem learnt it was replaced
    about = RelationshipTo(_M + "Entity", "ABOUT")
    from_session = RelationshipTo(_M + "Session", "FROM_SESSION")
    contradicts = RelationshipTo(_M + "Knowledge", "CONTRADICTS", model=Contradicts)
    contradicted_by = RelationshipFrom(_M + "Knowledge", "CONTRADICTS", model=Contradicts)
    superseded_by = RelationshipTo(_M + "Knowledge", "SUPERSEDED_BY", model=SupersededBy)
    supersedes = RelationshipFrom(_M + "Knowledge", "SUPERSEDED_BY", model=SupersededBy)
    concepts = RelationshipTo(_M + "Concept", "MENTIONS", model=Mentions)


class Entity(Searchable):
    """A subject or object of extracted triples."""

    name = StringProperty()
    kind = StringProperty()
    relates_to = RelationshipTo(_M + "Entity", "RELATES_TO", model=RelatesTo)
    related_from = RelationshipFrom(_M + "Entity", "RELATES_TO", model=RelatesTo)
    knowledge = RelationshipFrom(_M + "Knowledge", "ABOUT")
    mentioned_by = RelationshipFrom(_M + "Message", "MENTIONS", model=Mentions)


class Message(Searchable):
    """One conversation turn (``role`` is the speaker), chained by ``NEXT`` within its session."""

    role = StringProperty()
    text = StringProperty()
    ref = StringProperty()  # the caller's message reference
    ts = StringProperty()
    seq = IntegerProperty()  # position in the session
    session = StringProperty()  # the session's key
    part_of = RelationshipTo(_M + "Session", "PART_OF")
    next = RelationshipTo(_M + "Message", "NEXT")
    previous = RelationshipFrom(_M + "Message", "NEXT")
    mentions = RelationshipTo(_M + "Entity", "MENTIONS", model=Mentions)
    concepts = RelationshipTo(_M + "Concept", "MENTIONS", model=Mentions)


class Function(KgmemNode):
    """A function of the agent's code base (call-graph self-healing)."""

    qualname = StringProperty()
    calls = RelationshipTo(_M + "Function", "CALLS", model=Calls)
    callers = RelationshipFrom(_M + "Function", "CALLS", model=Calls)


class Concept(KgmemNode):
    """An entity or key phrase that memories mention; ``df`` is how many memories of the namespace do."""

    key = StringProperty()  # normalised form (aliases resolve to it)
    name = StringProperty()  # display form
    kind = StringProperty()  # entity / phrase
    df = IntegerProperty()
    ns_key = StringProperty()
    messages = RelationshipFrom(_M + "Message", "MENTIONS", model=Mentions)
    knowledge = RelationshipFrom(_M + "Knowledge", "MENTIONS", model=Mentions)
    errors = RelationshipFrom(_M + "ErrorPattern", "MENTIONS", model=Mentions)
    fixes = RelationshipFrom(_M + "Fix", "MENTIONS", model=Mentions)


#: Every node model, one per label kgmem writes.
MODELS: tuple[type[KgmemNode], ...] = (
    Tool,
    Session,
    ErrorPattern,
    Fix,
    Knowledge,
    Entity,
    Message,
    Function,
    Concept,
)


@dataclass(frozen=True)
class ModelEdge:
    """One relationship a model declares, as stored: ``(start)-[type]->(end)``.

    ``attribute`` of model ``declared_on`` traverses it: ``direction`` is ``"out"``
    (``RelationshipTo``), ``"in"`` (``RelationshipFrom``) or ``"either"`` (``Relationship``,
    e.g. ``ErrorPattern.similar``; start and end are then the two labels it joins)."""

    start: str
    type: str
    end: str
    declared_on: str
    attribute: str
    direction: str


def edges(model: type[KgmemNode]) -> list[ModelEdge]:
    """Every relationship ``model`` declares, with its stored direction."""
    out = []
    own = model.__label__
    for attribute, definition in model.defined_properties(aliases=False, properties=False).items():
        definition.lookup_node_class()
        other = definition.definition["node_class"].__label__
        rel_type = definition.definition["relation_type"]
        if isinstance(definition, RelationshipFrom):
            out.append(ModelEdge(other, rel_type, own, own, attribute, "in"))
        elif isinstance(definition, RelationshipTo):
            out.append(ModelEdge(own, rel_type, other, own, attribute, "out"))
        else:
            out.append(ModelEdge(own, rel_type, other, own, attribute, "either"))
    return out


def stored_properties(model: type[KgmemNode] | type[StructuredRel]) -> set[str]:
    """The graph property names ``model`` declares (``uid`` is stored as ``id``)."""
    return {
        prop.get_db_property_name(name) for name, prop in model.defined_properties(aliases=False, rels=False).items()
    }

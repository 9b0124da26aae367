"""Storage of conversation turns (``Message``, ``PART_OF``, ``NEXT``; docs/concepts.md).

One :meth:`TurnStore.record` call is one graph transaction (UNWIND over the
batch) followed by one embedding batch and one Chroma upsert. Message ids are
deterministic, so recording the same turns again adds nothing.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import numpy as np

from kgmem import kinds
from kgmem.concepts import ENTITY, ConceptExtractor, ConceptMention, concept_rows, mention_links, resolve_aliases
from kgmem.errors import ValidationError, VectorStoreUnavailable
from kgmem.graph import GraphStore
from kgmem.graph.keys import bounded_key, bounded_optional
from kgmem.ids import node_id
from kgmem.runner import Embed, LocalIO, Op, Read, SyncIO, VectorUpsert, Write, synced
from kgmem.timestamps import normalise_ts
from kgmem.tombstones import drop_forgotten_op, written_gone
from kgmem.vectors import Embedder, VectorStore

log = logging.getLogger(__name__)

MESSAGE_KIND = kinds.MESSAGE.name
MAX_TEXT_CHARS = 100_000
SESSIONS_REMEMBERED = 1024  # sessions whose names alias resolution remembers (least recent dropped)
NAMES_PER_SESSION = 64


@dataclass(frozen=True)
class Turn:
    """One conversation turn.

    Args:
        session: the caller's session name (``Session.key``).
        role: who spoke (``user``, ``assistant``, a speaker name, ...).
        text: what was said.
        ref: the caller's own id for this turn (e.g. a dialogue id); part of the message id.
        ts: when it was said, ISO-8601; defaults to the time it is recorded.
    """

    session: str
    role: str
    text: str
    ref: str | None = None
    ts: str | None = None


def message_id(ns: str, turn: Turn) -> str:
    """Deterministic id: the caller's ``ref`` when given, else a hash of role, timestamp and text.

    Without a ``ref`` (or ``ts``), identical text from the same role in the same session is one
    message — the price of idempotent retries without a caller-supplied id.
    """
    if turn.ref:
        return node_id(ns, MESSAGE_KIND, turn.session, turn.ref)
    digest = hashlib.sha256(f"{turn.role}\x1f{turn.ts or ''}\x1f{turn.text}".encode()).hexdigest()[:32]
    return node_id(ns, MESSAGE_KIND, turn.session, "h:" + digest)


def validate_turn(turn: Any, where: str = "turn") -> Turn:
    """Return ``turn`` as a :class:`Turn` or raise :class:`ValidationError` naming the bad field."""
    if isinstance(turn, dict):
        unknown = set(turn) - {"session", "role", "text", "ref", "ts"}
        if unknown:
            raise ValidationError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
        turn = Turn(**{k: turn.get(k) for k in ("session", "role", "text", "ref", "ts")})  # type: ignore[arg-type]
    if not isinstance(turn, Turn):
        raise ValidationError(f"{where}: expected a Turn, got {type(turn).__name__}")
    for name in ("session", "role", "text"):
        value = getattr(turn, name)
        if not isinstance(value, str) or not value.strip():
            raise ValidationError(f"{where}.{name}: must be a non-empty string")
    if len(turn.text) > MAX_TEXT_CHARS:
        raise ValidationError(f"{where}.text: longer than {MAX_TEXT_CHARS} characters")
    if turn.ref is not None and (not isinstance(turn.ref, str) or not turn.ref.strip()):
        raise ValidationError(f"{where}.ref: must be a non-empty string or None")
    if turn.ts is not None:  # one canonical UTC form: staleness maths and reports compare it as text
        turn = Turn(turn.session, turn.role, turn.text, turn.ref, normalise_ts(turn.ts, f"{where}.ts"))
    session, ref = bounded_key(turn.session), bounded_optional(turn.ref)
    if session is not turn.session or ref is not turn.ref:  # over the index limit: a stable hashed key
        turn = Turn(session, turn.role, turn.text, ref, turn.ts)
    return turn


def message_metadata(row: dict[str, Any]) -> dict[str, str | int | float | bool]:
    """What a search hit needs from Chroma without a graph lookup (defined in kgmem/kinds.py)."""
    return kinds.MESSAGE.metadata(row)


@dataclass(frozen=True)
class Recorded:
    """Result of :meth:`TurnStore.record_batch`: ids in input order, messages created, vectors written."""

    ids: list[str]
    created: int
    embedded: int


class TurnStore:
    """Records turns: graph first (one transaction), then vectors (one batch), then clears pending.

    Args:
        graph: the Neo4j runner.
        vectors: the Chroma store (collection per namespace and kind ``"message"``).
        embedder: the sentence embedder.
        concepts: the concept extractor (kgmem.app.Engines.concepts); None writes no concepts and
            leaves the MENTIONS of re-written turns as they are.
    """

    def __init__(
        self,
        graph: GraphStore | None,
        vectors: VectorStore | None,
        embedder: Embedder | None,
        concepts: ConceptExtractor | None = None,
    ) -> None:
        # The *_op methods are operations (kgmem.runner): AsyncKGMem runs them without these stores.
        self.graph = graph
        self.vectors = vectors
        self.embedder = embedder
        self.concepts = concepts
        # Names (speakers, named entities) seen per (ns, session), for alias resolution of later turns.
        self._session_names: OrderedDict[tuple[str, str], set[str]] = OrderedDict()
        self._names_lock = threading.Lock()
        self.io = SyncIO(graph, vectors, embedder)
        self._repair_due: set[str] = set()  # namespaces with vectors left pending by a Chroma failure

    def record(
        self,
        ns: str,
        turns: Sequence[Turn],
        vectors: np.ndarray | None = None,
        concepts: Sequence[Sequence[ConceptMention]] | None = None,
    ) -> list[str]:
        """Store ``turns`` (in conversation order) and return their message ids, in the same order.

        ``vectors`` (one row per turn, normalised) skips the model — for re-imports and benchmarks that
        already hold the embeddings. ``concepts`` (one list per turn, already extracted and resolved)
        likewise skips the concept extractor.
        """
        return self.record_batch(ns, turns, vectors, concepts).ids

    def record_batch_op(
        self,
        ns: str,
        turns: Sequence[Turn],
        vectors: np.ndarray | None = None,
        concepts: Sequence[Sequence[ConceptMention]] | None = None,
    ) -> Op[Recorded]:
        """Like :meth:`record`, also telling how many messages were new (bulk ingest reports it)."""
        if not isinstance(ns, str) or not ns:
            raise ValidationError("ns: must be a non-empty string")
        clean = [validate_turn(t, f"turns[{i}]") for i, t in enumerate(turns)]
        if not clean:
            return Recorded(ids=[], created=0, embedded=0)
        if vectors is not None and len(vectors) != len(clean):
            raise ValidationError(f"vectors: {len(vectors)} rows for {len(clean)} turns")
        if concepts is not None and len(concepts) != len(clean):
            raise ValidationError(f"concepts: {len(concepts)} lists for {len(clean)} turns")
        rows: list[dict[str, Any]] = [
            {
                "id": message_id(ns, t),
                "session_id": node_id(ns, "session", t.session),
                "session": t.session,
                "role": t.role,
                "text": t.text,
                "ref": t.ref,
                "ts": t.ts,
            }
            for t in clean
        ]
        if concepts is None:
            found = yield LocalIO(self._concepts_of, (ns, clean))  # spaCy: CPU, off the event loop
        else:
            found = [concept_rows(ns, mentions) for mentions in concepts]
        links = mention_links([r["id"] for r in rows], found)
        now = datetime.now(UTC).isoformat()
        written = yield Write("conversation/record_turns", dict(ns=ns, now=now, rows=rows, links=links))
        index = {r["id"]: i for i, r in enumerate(rows)}
        pending = []
        seen: set[str] = set()
        for w in written:
            if w["vector_pending"] and w["id"] not in seen:
                seen.add(w["id"])
                pending.append({**rows[index[w["id"]]], "seq": w["seq"], "ts": w["ts"]})
        given = None if vectors is None else np.asarray(vectors, dtype=np.float32)[[index[p["id"]] for p in pending]]
        yield from self._write_vectors(ns, pending, given)
        created = sum(1 for w in written if w["created"])
        return Recorded(ids=[r["id"] for r in rows], created=created, embedded=len(pending))

    record_batch = synced(record_batch_op)

    def _concepts_of(self, ns: str, turns: Sequence[Turn]) -> list[list[dict[str, str]] | None]:
        """Each turn's concept rows. Short names ("Mel") resolve against the batch's names, its
        speakers, and the speakers and entity names this store saw earlier in the same sessions
        (turns usually arrive one at a time)."""
        if self.concepts is None or not self.concepts.enabled:
            return [None] * len(turns)
        found = self.concepts.extract_many([t.text for t in turns])
        with self._names_lock:
            names = {t.role for t in turns}
            for key in dict.fromkeys((ns, t.session) for t in turns):
                names |= self._session_names.get(key, set())
            for t, mentions in zip(turns, found):
                seen = self._session_names.setdefault((ns, t.session), set())
                self._session_names.move_to_end((ns, t.session))
                for name in [t.role, *(m.name for m in mentions if m.kind == ENTITY)]:
                    if len(seen) < NAMES_PER_SESSION:
                        seen.add(name)
            while len(self._session_names) > SESSIONS_REMEMBERED:
                self._session_names.popitem(last=False)
        return [concept_rows(ns, m) for m in resolve_aliases(found, names=names)]

    def repair_op(self, ns: str, limit: int = 10_000) -> Op[int]:
        """Write the vectors of messages still marked ``vector_pending``; returns how many."""
        pending = yield Read("conversation/pending_messages", dict(ns=ns, limit=limit))
        yield from self._write_vectors(ns, pending)
        return len(pending)

    repair = synced(repair_op)

    def end_session_op(self, ns: str, session: str) -> Op[None]:
        """Mark ``session`` ended (``Session.ended_at``)."""
        if not isinstance(session, str) or not session.strip():
            raise ValidationError("session: must be a non-empty string")
        session = bounded_key(session)
        yield Write(
            "conversation/end_session",
            dict(
                ns=ns,
                id=node_id(ns, "session", session),
                key=session,
                now=datetime.now(UTC).isoformat(),
            ),
        )

    end_session = synced(end_session_op)

    def messages_op(self, ns: str, session: str) -> Op[list[dict[str, Any]]]:
        """The messages of ``session`` in order: dicts with id, role, text, ref, ts, seq, session."""
        return (
            yield Read("conversation/session_messages", dict(ns=ns, id=node_id(ns, "session", bounded_key(session))))
        )

    messages = synced(messages_op)

    @staticmethod
    def embedding_text(role: str, text: str) -> str:
        """What is embedded for a turn: the speaker and the text ("Caroline: I went ...").

        Questions often name the speaker; with the role in the vector the dense leg can use it
        (docs/retrieval.md has the measurement). The stored document stays the bare text.
        """
        return kinds.MESSAGE.embedding_text({"role": role, "text": text})

    def _write_vectors(self, ns: str, rows: list[dict[str, Any]], vectors: np.ndarray | None = None) -> Op[None]:
        if not rows:
            return
        if vectors is None:
            vectors = yield Embed([self.embedding_text(r["role"], r["text"]) for r in rows])
        ids = [r["id"] for r in rows]
        try:
            yield VectorUpsert(
                ns, MESSAGE_KIND, ids, vectors, [r["text"] for r in rows], [message_metadata(r) for r in rows]
            )
        except VectorStoreUnavailable as exc:
            # The graph write is committed and the messages stay `vector_pending`: never raise
            # (a retry would only re-send committed turns). The next write here repairs them.
            self._repair_due.add(ns)
            log.warning(
                "%d message vector(s) left pending (repaired by the next write or `kgmem reindex --missing-only`): %s",
                len(ids),
                exc,
            )
            return
        rows = yield Write("conversation/message_vectors_written", dict(ns=ns, ids=ids))
        # a forget that planned these turns (committed before its mark) may have deleted their vectors
        # before this upsert: the write above read its tombstones, and those vectors go now
        yield from drop_forgotten_op(ns, {MESSAGE_KIND: ids}, written_gone(rows))
        if ns in self._repair_due:
            self._repair_due.discard(ns)
            try:
                yield from self.repair_op(ns)
            except Exception as exc:  # noqa: BLE001 - best effort; still pending, still repairable
                log.warning("repair of pending message vectors failed: %s", exc)

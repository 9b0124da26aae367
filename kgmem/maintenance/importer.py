"""`kgmem import FILE.jsonl [--ns TARGET]`: load an export into its namespace, or into TARGET
(see ``export.py`` for the format).

Two passes over the file, so memory stays flat whatever its size. Pass 1 validates every
line (labels and relationship types against the allow-list, ids, namespace, endpoints,
nodes before relationships, the end marker's counts) keeping only the node ids — a bad
file is refused before anything is written. Pass 2 streams the same lines into the graph:
nodes in batches of ``batch`` per label, then relationships per type, each batch one
UNWIND statement from a fixed Cypher file — all of pass 2 in one transaction, so a failure
changes nothing. The target namespace must be empty unless ``replace`` is set (it is then
deleted in that same transaction; its Chroma collections after the commit).

Session state (format 2: query log, BQAR overlays, session shift states) is written last, in
the same transaction. Query ids are global — feedback names only the id — so a query id that
another namespace still holds (importing a copy next to its source) stays with that namespace
and is counted in ``ImportSummary.skipped``; after a move (the source deleted first) it moves.
"""

from __future__ import annotations

import json
import logging
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import neo4j
import neo4j.exceptions

from kgmem import cypher
from kgmem.errors import BackendUnavailable, ImportFormatError, NamespaceNotEmpty
from kgmem.graph import GraphStore
from kgmem.graph.keys import check_namespace
from kgmem.ids import ns_key
from kgmem.maintenance.allowlist import (
    NODE_LABELS,
    RELATIONSHIPS,
    STATE_LABELS,
    VECTOR_KINDS,
    node_cypher,
    rel_cypher,
    state_cypher,
)
from kgmem.maintenance.codec import decode_props
from kgmem.maintenance.export import FORMAT_VERSION

log = logging.getLogger(__name__)

BATCH = 1000


FORMATS = (1, FORMAT_VERSION)  # format 1: no session-state lines


@dataclass
class ImportSummary:
    """What an import wrote into namespace ``ns`` (from the file's namespace ``source``)."""

    ns: str
    nodes: Counter = field(default_factory=Counter)
    relationships: Counter = field(default_factory=Counter)
    replaced: bool = False
    source: str = ""
    state: Counter = field(default_factory=Counter)  # session-state label -> written
    skipped: Counter = field(default_factory=Counter)  # e.g. query ids another namespace still holds


@dataclass(frozen=True)
class Item:
    """One validated node, relationship or session-state line: ``name`` is its node label,
    relationship type or session-state label (the line's kind says which)."""

    name: str
    row: dict[str, Any]


@dataclass
class ExportCheck:
    """What pass 1 learned: the namespace and the counts per label / type."""

    ns: str
    nodes: Counter = field(default_factory=Counter)
    relationships: Counter = field(default_factory=Counter)
    state: Counter = field(default_factory=Counter)
    version: int = FORMAT_VERSION


def _lines(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            where = f"{path.name}:{lineno}"
            try:
                doc = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ImportFormatError(f"{where}: not JSON ({exc.msg})") from None
            if not isinstance(doc, dict):
                raise ImportFormatError(f"{where}: expected a JSON object")
            yield where, doc


def _items(path: Path) -> Iterator[tuple[str, str, Item | dict[str, Any]]]:
    """(where, kind, payload) per line: kind is header / node / rel / end; lines are checked one by one."""
    first = True
    for where, doc in _lines(path):
        if first:
            first = False
            if doc.get("kgmem_export") not in FORMATS or not isinstance(doc.get("ns"), str) or not doc["ns"]:
                raise ImportFormatError(
                    f"{where}: not a kgmem export header (version {' or '.join(map(str, FORMATS))})"
                )
            yield where, "header", doc
        elif "node" in doc:
            label, node_id = doc["node"], doc.get("id")
            if label not in NODE_LABELS:
                raise ImportFormatError(f"{where}: label {label!r} is not allowed ({', '.join(NODE_LABELS)})")
            if not isinstance(node_id, str) or not node_id:
                raise ImportFormatError(f"{where}: id must be a non-empty string")
            yield where, "node", Item(label, {"id": node_id, "props": decode_props(doc.get("props"), where)})
        elif "rel" in doc:
            rel_type = doc["rel"]
            if rel_type not in RELATIONSHIPS:
                raise ImportFormatError(f"{where}: relationship type {rel_type!r} is not allowed")
            if not all(isinstance(doc.get(k), str) and doc.get(k) for k in ("start", "end")):
                raise ImportFormatError(f"{where}: start and end must be node ids")
            yield (
                where,
                "rel",
                Item(
                    rel_type,
                    {"start": doc["start"], "end": doc["end"], "props": decode_props(doc.get("props", {}), where)},
                ),
            )
        elif doc.get("end") is True:  # before "state": the end marker counts the state lines under that key
            yield where, "end", doc
        elif "state" in doc:
            label = doc["state"]
            if label not in STATE_LABELS:
                raise ImportFormatError(
                    f"{where}: session-state label {label!r} is not allowed ({', '.join(STATE_LABELS)})"
                )
            props = decode_props(doc.get("props"), where)
            key = {k: props.get(k) for k in STATE_LABELS[label]}
            bad = [k for k, v in key.items() if not isinstance(v, str) or not v]
            if bad:
                raise ImportFormatError(f"{where}: {label} needs {', '.join(bad)} (a non-empty string)")
            yield where, "state", Item(label, {"key": key, "props": props})
        else:
            raise ImportFormatError(f"{where}: unknown line (want node, rel, state or end)")
    if first:
        raise ImportFormatError(f"{path.name}: empty file")


def check_export(path: Path) -> ExportCheck:
    """Pass 1: validate the whole file; :class:`ImportFormatError` names the first bad line."""
    check: ExportCheck | None = None
    ids: dict[str, set[str]] = defaultdict(set)  # label -> node ids (the only thing kept per line)
    seen_rel = seen_state = ended = False
    for where, kind, payload in _items(path):
        if ended:
            raise ImportFormatError(f"{where}: content after the end marker")
        if seen_state and kind in ("node", "rel"):
            raise ImportFormatError(f"{where}: {kind} after session state (session state comes last)")
        if kind == "header":
            check = ExportCheck(ns=payload["ns"], version=payload["kgmem_export"])  # type: ignore[index]
        elif kind == "state":
            assert check is not None and isinstance(payload, Item)
            if check.version < 2:
                raise ImportFormatError(f"{where}: session state in a format-{check.version} file")
            seen_state = True
            if payload.row["props"].get("ns") != check.ns:
                raise ImportFormatError(f"{where}: props.ns must be the file's namespace {check.ns!r}")
            check.state[payload.name] += 1
        elif kind == "node":
            assert check is not None and isinstance(payload, Item)
            if seen_rel:
                raise ImportFormatError(f"{where}: node after relationships (nodes come first)")
            props = payload.row["props"]
            if props.get("id") != payload.row["id"] or props.get("ns") != check.ns:
                raise ImportFormatError(f"{where}: props.id/props.ns must match the node id and namespace {check.ns!r}")
            ids[payload.name].add(payload.row["id"])
            check.nodes[payload.name] += 1
        elif kind == "rel":
            assert check is not None and isinstance(payload, Item)
            seen_rel = True
            start_labels, end_labels = RELATIONSHIPS[payload.name]
            if not any(payload.row["start"] in ids.get(label, ()) for label in start_labels) or not any(
                payload.row["end"] in ids.get(label, ()) for label in end_labels
            ):
                raise ImportFormatError(
                    f"{where}: {payload.name} {payload.row['start']} -> {payload.row['end']} needs a "
                    f"{' or '.join(start_labels)} and a {' or '.join(end_labels)} node that the file does not hold"
                )
            check.relationships[payload.name] += 1
        else:  # end marker
            assert check is not None
            ended = True
            n_nodes, n_rels = sum(check.nodes.values()), sum(check.relationships.values())
            if (payload.get("nodes"), payload.get("relationships")) != (n_nodes, n_rels):  # type: ignore[union-attr]
                raise ImportFormatError(
                    f"{path.name}: end marker counts {payload.get('nodes')}/{payload.get('relationships')} "  # type: ignore[union-attr]
                    f"but the file holds {n_nodes} nodes / {n_rels} relationships"
                )
            n_state = sum(check.state.values())
            if check.version >= 2 and payload.get("state") != n_state:  # type: ignore[union-attr]
                raise ImportFormatError(
                    f"{path.name}: end marker counts {payload.get('state')} session-state lines "  # type: ignore[union-attr]
                    f"but the file holds {n_state}"
                )
    if not ended or check is None:
        raise ImportFormatError(f"{path.name}: no end marker — the file is truncated")
    return check


def import_namespace(
    graph: GraphStore,
    path: Path,
    *,
    replace: bool = False,
    vectors: Any = None,
    batch: int = BATCH,
    progress: Callable[[int], None] | None = None,
    ns: str | None = None,
) -> ImportSummary:
    """Import ``path`` into the namespace named in its header, or into ``ns``. Returns what was written.

    All or nothing: the whole file is validated first (pass 1, including every property value
    Neo4j could refuse), then the old namespace is deleted (``replace``) and the file written in
    ONE transaction — if anything fails, the namespace is exactly as it was. The namespace's
    Chroma collections are dropped only after that transaction committed. Into another namespace,
    every node's and state line's ``ns`` (and ``ns_key``) becomes ``ns``; ids are kept.
    """
    check = check_export(path)
    ns = check.ns if ns is None else check_namespace(ns)
    existing = graph.read("maintenance/count_namespace", ns=ns)[0]["n"]
    if existing and not replace:
        raise NamespaceNotEmpty(f"namespace {ns!r} already holds {existing} nodes; use --replace to overwrite it")

    def work(tx: neo4j.ManagedTransaction) -> ImportSummary:
        summary = ImportSummary(ns=ns, replaced=bool(existing), source=check.ns)
        if existing:
            tx.run(cypher.load("maintenance/delete_namespace_tx"), ns=ns).consume()
        _write_items(tx, path, ns, batch, summary, progress)
        return summary

    try:
        with graph.driver.session(database=graph.database) as session:
            summary = session.execute_write(work)
    except (neo4j.exceptions.ServiceUnavailable, neo4j.exceptions.SessionExpired, OSError) as exc:
        raise BackendUnavailable(f"Neo4j is not reachable: {exc}; nothing was imported") from exc
    except neo4j.exceptions.Neo4jError as exc:  # validated in pass 1, so unexpected: name it, nothing changed
        raise ImportFormatError(
            f"{path.name}: Neo4j refused the import ({exc.code}: {exc.message}); nothing was changed"
        ) from exc
    if existing and vectors is not None:
        vectors.drop_namespace(ns, list(VECTOR_KINDS))
    log.info(
        "imported %s into %s: %s nodes, %s relationships, %s session-state entries",
        check.ns,
        ns,
        sum(summary.nodes.values()),
        sum(summary.relationships.values()),
        sum(summary.state.values()),
    )
    if summary.skipped:
        log.warning("import into %s skipped: %s", ns, dict(summary.skipped))
    return summary


def _write_items(
    tx: neo4j.ManagedTransaction,
    path: Path,
    ns: str,
    batch: int,
    summary: ImportSummary,
    progress: Callable[[int], None] | None,
) -> None:
    """Pass 2 inside the import transaction: nodes per label, then relationships per type, in batches."""
    node_buf: dict[str, list[dict[str, Any]]] = defaultdict(list)
    rel_buf: dict[str, list[dict[str, Any]]] = defaultdict(list)
    state_buf: dict[str, list[dict[str, Any]]] = defaultdict(list)

    def run(name: str, rows: list[dict[str, Any]]) -> int:
        return int(tx.run(cypher.load(name), ns=ns, rows=rows).single(strict=True)["written"])

    def retarget(row: dict[str, Any]) -> dict[str, Any]:
        """The row with its namespace properties set to the target namespace (a no-op for the same one)."""
        props = dict(row["props"], ns=ns)
        if "ns_key" in props:
            props["ns_key"] = ns_key(ns)
        return {**row, "props": props}

    def flush_state(label: str) -> None:
        rows, state_buf[label] = state_buf[label], []
        if rows:
            written = run(state_cypher(label), rows)
            summary.state[label] += written
            if written < len(rows):  # only the query log can refuse: ids another namespace holds
                summary.skipped[f"{label} held by another namespace"] += len(rows) - written
            if progress:
                progress(len(rows))

    def flush_nodes(label: str) -> None:
        rows, node_buf[label] = node_buf[label], []
        if rows:
            summary.nodes[label] += run(node_cypher(label), rows)
            if progress:
                progress(len(rows))

    def flush_rels(rel_type: str) -> None:
        rows, rel_buf[rel_type] = rel_buf[rel_type], []
        if rows:
            written = run(rel_cypher(rel_type), rows)
            if written != len(rows):  # validated in pass 1: only a concurrent delete can cause this
                raise ImportFormatError(
                    f"{path.name}: {len(rows) - written} {rel_type} relationship(s) lost an endpoint"
                )
            summary.relationships[rel_type] += written
            if progress:
                progress(len(rows))

    nodes_done = False
    for _, kind, item in _items(path):
        if not isinstance(item, Item):
            continue  # the header and end lines (pass 1 checked them)
        if kind == "node":
            node_buf[item.name].append(retarget(item.row))
            if len(node_buf[item.name]) >= batch:
                flush_nodes(item.name)
        elif kind == "rel":
            if not nodes_done:  # every node is in before the first relationship
                for label in list(node_buf):
                    flush_nodes(label)
                nodes_done = True
            rel_buf[item.name].append(item.row)
            if len(rel_buf[item.name]) >= batch:
                flush_rels(item.name)
        elif kind == "state":  # the last lines of a file: nodes and relationships are all in
            for label in list(node_buf):
                flush_nodes(label)
            for rel_type in list(rel_buf):
                flush_rels(rel_type)
            state_buf[item.name].append(retarget(item.row))
            if len(state_buf[item.name]) >= batch:
                flush_state(item.name)
    for label in list(node_buf):
        flush_nodes(label)
    for rel_type in list(rel_buf):
        flush_rels(rel_type)
    for label in list(state_buf):
        flush_state(label)


def item_count(path: Path) -> int:
    """Lines that are nodes or relationships (for a progress bar)."""
    with path.open(encoding="utf-8") as fh:
        return max(0, sum(1 for line in fh if line.strip()) - 2)

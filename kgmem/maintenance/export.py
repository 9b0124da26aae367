"""`kgmem export --ns NS FILE.jsonl`: one namespace as JSON lines.

Line 1 is a header ``{"kgmem_export": 1, "ns": ..., "exported_at": ...}``; then one line
per node ``{"node": Label, "id": ..., "props": {...}}`` (all nodes before any
relationship), one per relationship ``{"rel": TYPE, "start": id, "end": id, "props": {...}}``,
then (format 2) one per piece of retrieval session state ``{"state": Label, "props": {...}}`` —
the query log entries that have not expired, the BQAR session overlays of unmerged feedback, the
sessions' shift states (:data:`~kgmem.maintenance.allowlist.STATE_LABELS`) — and a trailer
``{"end": true, "nodes": n, "relationships": m, "state": s}`` so a truncated file is detected on
import.
"""

from __future__ import annotations

import json
import logging
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO

from kgmem import cypher
from kgmem.graph import GraphStore
from kgmem.maintenance.allowlist import RELATIONSHIPS, allowed_label, state_label
from kgmem.maintenance.codec import encode_props

log = logging.getLogger(__name__)

FORMAT_VERSION = 2  # 2: session-state lines; import reads 1 and 2


@dataclass
class ExportSummary:
    """What an export wrote (and what it could not, which makes it lossy: see ``skipped``)."""

    ns: str
    nodes: Counter = field(default_factory=Counter)
    relationships: Counter = field(default_factory=Counter)
    state: Counter = field(default_factory=Counter)  # session-state label -> lines
    skipped: Counter = field(default_factory=Counter)

    @property
    def total_nodes(self) -> int:
        return sum(self.nodes.values())

    @property
    def total_relationships(self) -> int:
        return sum(self.relationships.values())

    @property
    def total_state(self) -> int:
        return sum(self.state.values())


def export_namespace(graph: GraphStore, ns: str, path: Path) -> ExportSummary:
    """Write namespace ``ns`` to ``path`` (JSONL, UTF-8); streamed, so memory stays flat."""
    tmp = path.with_name(path.name + ".part")
    with tmp.open("w", encoding="utf-8") as out:
        summary = write_export(graph, ns, out)
    tmp.replace(path)
    if summary.skipped:
        log.warning("export of %s skipped: %s", ns, dict(summary.skipped))
    return summary


def write_export(graph: GraphStore, ns: str, out: IO[str]) -> ExportSummary:
    summary = ExportSummary(ns)
    # Neo4j reads are read-committed, not snapshots: nodes created while the node pass runs can
    # show up in the relationship pass. Only relationships between exported nodes are written,
    # so the file is always self-consistent (the rest is counted as skipped).
    exported: set[str] = set()
    _line(out, {"kgmem_export": FORMAT_VERSION, "ns": ns, "exported_at": datetime.now(UTC).isoformat()})
    with graph.driver.session(database=graph.database, default_access_mode="READ") as session:
        for record in session.run(cypher.load("maintenance/export_nodes"), ns=ns):
            if state_label(record["labels"]) is not None:
                continue  # written by the state pass below
            label = allowed_label(record["labels"])
            props = record["props"]
            if label is None or not isinstance(props.get("id"), str):
                summary.skipped["label:" + ":".join(record["labels"]) if label is None else f"{label} without id"] += 1
                continue
            _line(out, {"node": label, "id": props["id"], "props": encode_props(props)})
            exported.add(props["id"])
            summary.nodes[label] += 1
        for record in session.run(cypher.load("maintenance/export_relationships"), ns=ns):
            rel_type = record["type"]
            ends = RELATIONSHIPS.get(rel_type)
            if (
                ends is None
                or not set(ends[0]) & set(record["start_labels"])
                or not set(ends[1]) & set(record["end_labels"])
                or record["end_ns"] != ns
            ):
                summary.skipped[f"rel:{rel_type}"] += 1
                continue
            if record["start"] not in exported or record["end"] not in exported:
                summary.skipped[f"rel:{rel_type} to a node written during the export"] += 1
                continue
            _line(
                out,
                {
                    "rel": rel_type,
                    "start": record["start"],
                    "end": record["end"],
                    "props": encode_props(record["props"]),
                },
            )
            summary.relationships[rel_type] += 1
        # Session state last: the overlays and queries name nodes exported above. An overlay or a
        # query written during the export may be missing, as in any snapshot of a live namespace.
        for record in session.run(cypher.load("maintenance/export_state"), ns=ns, now_ms=int(time.time() * 1000)):
            label = state_label(record["labels"])
            _line(out, {"state": label, "props": encode_props(record["props"])})
            summary.state[label] += 1
    _line(
        out,
        {
            "end": True,
            "nodes": summary.total_nodes,
            "relationships": summary.total_relationships,
            "state": summary.total_state,
        },
    )
    return summary


def _line(out: IO[str], doc: dict) -> None:
    out.write(json.dumps(doc, ensure_ascii=False, separators=(",", ":"), allow_nan=False) + "\n")

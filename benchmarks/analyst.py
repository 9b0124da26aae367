"""Benchmark the analyst surfaces on a synthetic namespace: import, every report, export, reindex, decay.

Usage (needs the running Neo4j from `kgmem up`):

    .venv/bin/python -m benchmarks.analyst [--scale 1.0] [--no-reindex]

The namespace is generated as an export file (so the import path is what builds it),
measured, and deleted at the end. Figures go to stdout as a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

from kgmem.config import load_settings
from kgmem.graph import GraphStore, connect
from kgmem.ids import node_id
from kgmem.maintenance import delete_namespace, export_namespace, import_namespace, reindex, run_decay
from kgmem.reports import list_reports, run_report
from kgmem.vectors import Embedder, VectorStore, open_chroma

TOOLS = ["bash", "http", "db", "git", "python", "docker", "s3", "llm"]
CATEGORIES = ["timeout", "permission", "provider_error", "tool_error", "general"]
KTYPES = ["fact", "pattern", "correction", "preference"]


def synthetic_export(path: Path, ns: str, scale: float, seed: int = 7) -> dict[str, int]:
    """Write an export file for a namespace of the given scale; returns the counts."""
    rnd = random.Random(seed)
    now = datetime.now(UTC)
    n_sessions, n_errors, n_fixes = int(200 * scale), int(5000 * scale), int(500 * scale)
    n_knowledge, n_messages, n_functions = int(2000 * scale), int(3000 * scale), int(1000 * scale)
    iso = lambda dt: dt.isoformat()  # noqa: E731
    lines: list[dict] = [{"kgmem_export": 1, "ns": ns, "exported_at": iso(now)}]
    rels: list[dict] = []

    def node(label: str, kind: str, *parts: str, **props) -> str:
        nid = node_id(ns, kind, *parts)
        lines.append(
            {
                "node": label,
                "id": nid,
                "props": {"ns": ns, "id": nid, "created_at": iso(now), "updated_at": iso(now), **props},
            }
        )
        return nid

    tools = [node("Tool", "tool", t, name=t) for t in TOOLS]
    sessions = []
    for i in range(n_sessions):
        start = now - timedelta(days=60 * (n_sessions - i) / n_sessions)
        sessions.append((node("Session", "session", f"s{i}", key=f"s{i}", started_at=iso(start), turns=0), start))
    fixes = [
        node(
            "Fix",
            "fix",
            f"fix {i}",
            description=f"fix number {i}: retry with option {i % 17}",
            source=rnd.choice(["observed", "user", "analyzer"]),
            vector_pending=False,
        )
        for i in range(n_fixes)
    ]
    errors = []
    for i in range(n_errors):
        tool = rnd.randrange(len(TOOLS))
        occ = 1 + int(rnd.paretovariate(1.5))
        eid = node(
            "ErrorPattern",
            "error",
            TOOLS[tool],
            f"pattern {i}",
            tool=TOOLS[tool],
            pattern=f"{TOOLS[tool]} failed with code <n> in step {i}",
            category=rnd.choice(CATEGORIES),
            occurrences=occ,
            first_seen=iso(now - timedelta(days=60)),
            last_seen=iso(now),
            vector_pending=False,
        )
        errors.append(eid)
        rels.append({"rel": "CAUSED_BY", "start": eid, "end": tools[tool], "props": {}})
        for sid, start in rnd.sample(sessions, k=min(len(sessions), 1 + occ // 3)):
            rels.append(
                {
                    "rel": "IN_SESSION",
                    "start": eid,
                    "end": sid,
                    "props": {"count": 1 + occ // 3, "last_seen": iso(start)},
                }
            )
        if rnd.random() < 0.4:
            s, f = rnd.randint(0, 6), rnd.randint(0, 3)
            rels.append(
                {
                    "rel": "RESOLVED_BY",
                    "start": eid,
                    "end": rnd.choice(fixes),
                    "props": {
                        "confidence": round(rnd.uniform(0.1, 1.0), 3),
                        "successes": s,
                        "failures": f,
                        "alpha": 1.0 + s,
                        "beta": 1.0 + f,
                        "last_used": iso(now),
                    },
                }
            )
    for i in range(0, n_errors - 1, 3):
        rels.append(
            {
                "rel": "SIMILAR_TO",
                "start": errors[i],
                "end": errors[i + 1],
                "props": {"score": round(rnd.uniform(0.75, 0.99), 3)},
            }
        )
    knowledge = []
    for i in range(n_knowledge):
        seen = now - timedelta(days=rnd.uniform(0, 120))
        kid = node(
            "Knowledge",
            "knowledge",
            f"k{i}",
            type=rnd.choice(KTYPES),
            content=f"knowledge item {i} about topic {i % 97}",
            confidence=round(rnd.uniform(0.1, 0.95), 3),
            times_seen=rnd.randint(1, 9),
            source_sessions=[],
            is_manual=rnd.random() < 0.05,
            is_active=rnd.random() > 0.1,
            last_seen_at=iso(seen),
            vector_pending=False,
            alpha=1.0 + rnd.randint(0, 5),
            beta=1.0 + rnd.randint(0, 3),
            feedback_count=rnd.randint(0, 12),
        )
        knowledge.append(kid)
        rels.append({"rel": "FROM_SESSION", "start": kid, "end": rnd.choice(sessions)[0], "props": {}})
    for i in range(1, n_knowledge, 25):
        rels.append(
            {"rel": "CONTRADICTS", "start": knowledge[i], "end": knowledge[i - 1], "props": {"created_at": iso(now)}}
        )
    prev = None
    for i in range(n_messages):
        sid, start = sessions[i * len(sessions) // max(1, n_messages)]
        mid = node(
            "Message",
            "message",
            f"m{i}",
            role=rnd.choice(["user", "assistant"]),
            text=f"message {i} in a conversation about topic {i % 31}",
            ts=iso(start),
            session=sid,
            seq=i,
            vector_pending=False,
        )
        rels.append({"rel": "PART_OF", "start": mid, "end": sid, "props": {}})
        if prev:
            rels.append({"rel": "NEXT", "start": prev, "end": mid, "props": {}})
        prev = mid
    functions = [
        node("Function", "function", f"mod{i // 50}.f{i}", qualname=f"mod{i // 50}.f{i}") for i in range(n_functions)
    ]
    for _ in range(3 * n_functions):
        a, b = rnd.sample(functions, 2)
        src = "ast" if rnd.random() < 0.7 else "observation"
        rels.append(
            {
                "rel": "CALLS",
                "start": a,
                "end": b,
                "props": {
                    "source": src,
                    "confidence": 1.0 if src == "ast" else 0.6,
                    "times_confirmed": 0,
                    "last_confirmed": iso(now - timedelta(days=30)),
                },
            }
        )
    n_nodes = len(lines) - 1
    lines.extend(rels)
    lines.append({"end": True, "nodes": n_nodes, "relationships": len(rels)})
    path.write_text("".join(json.dumps(d) + "\n" for d in lines))
    return {"nodes": n_nodes, "relationships": len(rels)}


def timed(fn):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - start


def measure(settings, scale: float, with_reindex: bool = True) -> dict[str, float | int]:  # noqa: ANN001 - Settings
    """Import, every report (median of 3), export, decay and (optionally) reindex on a synthetic namespace
    of ``scale`` × the default size; the namespace is deleted afterwards."""
    ns = f"bench-analyst-{uuid.uuid4().hex[:8]}"
    out: dict[str, float | int] = {}
    with tempfile.TemporaryDirectory() as tmp, connect(settings) as driver:
        graph = GraphStore(driver, settings.neo4j.database)
        src = Path(tmp) / "synthetic.jsonl"
        counts = synthetic_export(src, ns, scale)
        out.update(nodes=counts["nodes"], relationships=counts["relationships"])
        try:
            _, t_import = timed(lambda: import_namespace(graph, src))
            out["import.s"] = t_import
            out["import.items_per_s"] = (counts["nodes"] + counts["relationships"]) / t_import
            for spec in list_reports():
                runs = []
                for _ in range(3):
                    result, t = timed(lambda: run_report(graph, spec.name, {"ns": ns}))  # noqa: B023 - called at once
                    runs.append(t)
                out[f"report.{spec.name}.ms"] = statistics.median(runs) * 1000
                out[f"report.{spec.name}.rows"] = len(result.rows)
            export_file = Path(tmp) / "export.jsonl"
            summary, t_export = timed(lambda: export_namespace(graph, ns, export_file))
            out["export.s"] = t_export
            out["export.items_per_s"] = (summary.total_nodes + summary.total_relationships) / t_export
            decay, t_decay = timed(lambda: run_decay(graph, ns))
            out["decay.ms"] = t_decay * 1000
            out["decay.knowledge_decayed"] = decay.knowledge_decayed
            out["decay.edges_decayed"] = decay.callgraph_decayed
            if with_reindex:
                chroma = settings.model_copy(
                    update={"chroma": settings.chroma.model_copy(update={"path": Path(tmp) / "chroma"})}
                )
                vectors = VectorStore(open_chroma(chroma))
                embedder = Embedder(settings.embedding, settings.models_dir)
                result, t_reindex = timed(lambda: reindex(graph, vectors, embedder, ns))
                embedded = sum(k.embedded for k in result.kinds.values())
                out["reindex.s"] = t_reindex
                out["reindex.vectors_per_s"] = embedded / t_reindex
                result, t_missing = timed(lambda: reindex(graph, vectors, embedder, ns, missing_only=True))
                out["reindex_missing_only.s"] = t_missing
                out["reindex_missing_only.repaired"] = result.repaired
        finally:
            delete_namespace(graph, None, ns)
    return out


def run(settings, quick: bool = False) -> dict[str, float | int]:  # noqa: ANN001 - kgmem.config.Settings
    """Analyst surfaces on a synthetic namespace (``import.items_per_s``, ``report.<name>.ms``, ``export.*``,
    ``decay.*``, ``reindex.*``). Quick: scale 0.05; full: scale 1.0."""
    return measure(settings, 0.05 if quick else 1.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--no-reindex", action="store_true")
    args = parser.parse_args()
    out = measure(load_settings(), args.scale, with_reindex=not args.no_reindex)
    print("| measure | value |\n|---|---|")
    for key, value in out.items():
        print(f"| {key} | {value:,.2f} |" if isinstance(value, float) else f"| {key} | {value:,} |")


if __name__ == "__main__":
    main()

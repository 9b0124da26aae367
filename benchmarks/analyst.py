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
from kgmem.maintenance import export_namespace, import_namespace, reindex, run_decay
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--no-reindex", action="store_true")
    args = parser.parse_args()
    settings = load_settings()
    ns = f"bench-analyst-{uuid.uuid4().hex[:8]}"
    with tempfile.TemporaryDirectory() as tmp, connect(settings) as driver:
        graph = GraphStore(driver, settings.neo4j.database)
        src = Path(tmp) / "synthetic.jsonl"
        counts = synthetic_export(src, ns, args.scale)
        print(f"namespace {ns}: {counts['nodes']} nodes, {counts['relationships']} relationships")
        try:
            _, t_import = timed(lambda: import_namespace(graph, src))
            print(
                f"| import | {t_import:.2f} s | {(counts['nodes'] + counts['relationships']) / t_import:,.0f} items/s |"
            )
            for spec in list_reports():
                runs = []
                for _ in range(3):
                    result, t = timed(lambda: run_report(graph, spec.name, {"ns": ns}))  # noqa: B023 - called at once
                    runs.append(t)
                print(
                    f"| report {spec.name} | {statistics.median(runs) * 1000:.0f} ms (median of 3) "
                    f"| {len(result.rows)} rows |"
                )
            out = Path(tmp) / "export.jsonl"
            summary, t_export = timed(lambda: export_namespace(graph, ns, out))
            total = summary.total_nodes + summary.total_relationships
            print(f"| export | {t_export:.2f} s | {total / t_export:,.0f} items/s |")
            decay, t_decay = timed(lambda: run_decay(graph, ns))
            print(
                f"| decay | {t_decay * 1000:.0f} ms | {decay.knowledge_decayed} knowledge, "
                f"{decay.callgraph_decayed} edges |"
            )
            if not args.no_reindex:
                chroma = settings.model_copy(
                    update={"chroma": settings.chroma.model_copy(update={"path": Path(tmp) / "chroma"})}
                )
                vectors = VectorStore(open_chroma(chroma))
                embedder = Embedder(settings.embedding, settings.models_dir)
                result, t_reindex = timed(lambda: reindex(graph, vectors, embedder, ns))
                embedded = sum(k.embedded for k in result.kinds.values())
                print(f"| reindex (full) | {t_reindex:.1f} s | {embedded / t_reindex:,.0f} vectors/s |")
                result, t_missing = timed(lambda: reindex(graph, vectors, embedder, ns, missing_only=True))
                print(f"| reindex --missing-only (nothing missing) | {t_missing:.2f} s | {result.repaired} repaired |")
        finally:
            graph.write_autocommit("maintenance/delete_namespace", ns=ns)


if __name__ == "__main__":
    main()

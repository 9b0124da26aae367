"""The neomodel models on the real Neo4j: the batch-job example of docs/analysts.md run as written,
read-only access, namespace filtering, and every property kgmem's writers store declared on a model."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from neomodel import db

from kgmem.graph import models
from kgmem.graph.models import Concept, ErrorPattern, Tool, bind, for_namespace
from kgmem.maintenance import delete_namespace

ROOT = Path(__file__).resolve().parents[3]
DOC = ROOT / "docs" / "analysts.md"
TIMEOUT = "Command timed out after 30 seconds"
PERM = "Permission denied: cannot write to the output directory"


def doc_example() -> str:
    """The python block after the ``<!-- example: neomodel-batch-job -->`` marker."""
    match = re.search(r"<!-- example: neomodel-batch-job -->\s*```python\n(.*?)```", DOC.read_text(), re.S)
    assert match, f"{DOC}: the neomodel batch-job example is missing"
    return match[1]


@pytest.fixture
def bound(driver, base_settings):  # type: ignore[no-untyped-def]
    bind(driver, base_settings.neo4j.database)
    return driver


@pytest.fixture
def errors_and_fixes(mem):  # type: ignore[no-untyped-def]
    """A namespace written through the public API: two errors (3 and 2 occurrences), fixes with outcomes."""
    timeouts = [mem.tool_result("bash", {"cmd": "make"}, error=TIMEOUT, session=f"s{i}") for i in range(3)]
    perm = [mem.tool_result("http", {"url": "/out"}, error=PERM, session="s1") for _ in range(2)][0]
    for timeout, success in zip(timeouts, (True, True, False)):  # one outcome per occurrence: each counts
        mem.resolve(timeout, "raise the timeout to 120 s", success=success)
    mem.resolve(timeouts[0], "retry once", success=False)
    mem.resolve(perm, "write to /tmp instead", success=True)
    mem.turn(session="s1", role="user", text="why does make keep timing out?", ref="t1")
    mem.turn(session="s1", role="assistant", text="the build exceeds 30 seconds", ref="t2")
    mem.add_knowledge("Builds need more than 30 seconds on CI", type="fact")
    mem.record_calls([("app.main", "app.build")])
    mem.observe_changes(["app.main", "app.build"], session="s1")
    mem.flush()
    return mem


def test_the_documented_batch_job_lists_top_errors_with_their_fixes(bound, errors_and_fixes) -> None:
    mem = errors_and_fixes
    scope: dict = {"__name__": "kgmem_docs_example"}
    exec(compile(doc_example(), str(DOC), "exec"), scope)  # noqa: S102 - the docs' own code
    rows = scope["top_errors_with_fixes"](mem.namespace)
    assert [(r["tool"], r["occurrences"]) for r in rows] == [("bash", 3), ("http", 2)]
    timeout_fixes = rows[0]["fixes"]
    assert [(f["fix"], f["successes"], f["failures"]) for f in timeout_fixes] == [
        ("raise the timeout to 120 s", 2, 1),
        ("retry once", 0, 1),
    ]
    assert timeout_fixes[0]["confidence"] > timeout_fixes[1]["confidence"]
    assert [f["fix"] for f in rows[1]["fixes"]] == ["write to /tmp instead"]
    # the same figures as the Cypher report over the same graph
    report = {r["fix"]: r for r in mem.report("fix_effectiveness")}
    assert report["raise the timeout to 120 s"]["max_confidence"] == pytest.approx(
        timeout_fixes[0]["confidence"], abs=1e-3
    )
    assert scope["top_errors_with_fixes"](mem.namespace, limit=1)[0]["tool"] == "bash"


def test_the_documented_batch_job_runs_as_a_script(errors_and_fixes, tmp_path: Path) -> None:
    script = tmp_path / "top_errors.py"
    script.write_text(doc_example())
    env = {
        **os.environ,
        "KGMEM_NAMESPACE": errors_and_fixes.namespace,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].split() == ["3", "bash:", *lines[0].split()[2:]] and "timed out" in lines[0]
    assert "raise the timeout to 120 s  (2 worked, 1 failed)" in lines[1]
    assert any(line.split()[:2] == ["2", "http:"] for line in lines)


def test_reads_are_namespace_scoped(bound, errors_and_fixes, graph) -> None:
    other = f"test-other-{uuid.uuid4().hex[:10]}"
    try:
        graph.driver.execute_query(
            "CREATE (:ErrorPattern {ns: $ns, id: 'intruder', tool: 'bash', pattern: 'x', occurrences: 99})",
            ns=other,
            database_="neo4j",
        )
        with db.read_transaction:
            mine = for_namespace(ErrorPattern, errors_and_fixes.namespace).order_by("-occurrences").all()
            theirs = for_namespace(ErrorPattern, other).all()
        assert [e.occurrences for e in mine] == [3, 2]
        assert {e.ns for e in mine} == {errors_and_fixes.namespace}
        assert [(e.uid, e.occurrences) for e in theirs] == [("intruder", 99)]
    finally:
        delete_namespace(graph, None, other)


def test_a_read_transaction_refuses_writes(bound, errors_and_fixes) -> None:
    before = len(for_namespace(Tool, errors_and_fixes.namespace).all())
    with pytest.raises(Exception, match="(?i)read access mode|Transaction failed"):
        with db.read_transaction:
            Tool(ns=errors_and_fixes.namespace, uid="sneaky", name="sneaky").save()
    assert len(for_namespace(Tool, errors_and_fixes.namespace).all()) == before


def test_bind_uses_kgmems_driver(bound) -> None:
    assert db.driver is bound


def test_every_stored_property_is_declared_on_its_model(bound, errors_and_fixes) -> None:
    """What kgmem's writers actually stored in this namespace, against the models."""
    ns = errors_and_fixes.namespace
    nodes, _, _ = bound.execute_query(
        "MATCH (n {ns: $ns}) UNWIND labels(n) AS label UNWIND keys(n) AS key "
        "RETURN label, collect(DISTINCT key) AS keys",
        ns=ns,
        database_="neo4j",
    )
    by_label = {m.__label__: m for m in models.MODELS}
    checked = set()
    for record in nodes:
        model = by_label.get(record["label"])
        if model is None:
            continue  # bookkeeping labels (IngestedEvent) have no model: the drift test lists them
        missing = set(record["keys"]) - models.stored_properties(model)
        assert not missing, f"{record['label']} stores {sorted(missing)} that its model does not declare"
        checked.add(record["label"])
    assert {"ErrorPattern", "Fix", "Tool", "Session", "Message", "Knowledge", "Function"} <= checked
    rels, _, _ = bound.execute_query(
        "MATCH ({ns: $ns})-[r]->() UNWIND keys(r) AS key RETURN type(r) AS type, collect(DISTINCT key) AS keys",
        ns=ns,
        database_="neo4j",
    )
    rel_models = {
        d.definition["relation_type"]: d.definition["model"]
        for m in models.MODELS
        for d in m.defined_properties(aliases=False, properties=False).values()
        if d.definition["model"] is not None
    }
    for record in rels:
        if record["type"] in rel_models:
            missing = set(record["keys"]) - models.stored_properties(rel_models[record["type"]])
            assert not missing, f"{record['type']} stores {sorted(missing)} that its model does not declare"
    # and every node inflates into its model
    with db.read_transaction:
        for model in models.MODELS:
            for node in for_namespace(model, ns).all():
                assert node.ns == ns and node.uid


def test_concepts_traverse_to_the_memories_that_mention_them(bound, ns, graph) -> None:
    graph.driver.execute_query(
        "CREATE (c:Concept {ns: $ns, id: 'c1', key: 'deploy', name: 'Deploy', kind: 'phrase', df: 2, ns_key: $ns}) "
        "CREATE (:ErrorPattern {ns: $ns, id: 'e1', pattern: 'deploy timed out', occurrences: 1})-[:MENTIONS]->(c) "
        "CREATE (:Message {ns: $ns, id: 'm1', text: 'the deploy hangs', role: 'user'})-[:MENTIONS]->(c)",
        ns=ns,
        database_="neo4j",
    )
    with db.read_transaction:
        concept = for_namespace(Concept, ns).get(key="deploy")
        assert (concept.name, concept.kind, concept.df) == ("Deploy", "phrase", 2)
        assert [e.pattern for e in concept.errors.all()] == ["deploy timed out"]
        assert [m.text for m in concept.messages.all()] == ["the deploy hangs"]
        assert concept.fixes.all() == [] and concept.knowledge.all() == []

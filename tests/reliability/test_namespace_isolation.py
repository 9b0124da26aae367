"""Namespaces never leak, for any kind of item, including look-alike names (``team`` vs
``Team-A`` vs ``team_a``): messages, knowledge, errors, fixes (search and the fixes handed back
by ``tool_result``) and graph expansion all stay inside the namespace asked for."""

from __future__ import annotations

import uuid

from kgmem import KGMem
from kgmem.config import Settings
from kgmem.maintenance import delete_namespace


def test_look_alike_namespaces_see_only_their_own(settings: Settings, driver, embedder, graph, tmp_path) -> None:  # noqa: ANN001
    prefix = f"iso{uuid.uuid4().hex[:6]}-"
    names = [prefix + n for n in ("team", "Team-A", "team_a", "team-a")]
    quiet = settings.model_copy(update={"analysis": settings.analysis.model_copy(update={"enabled": False})})
    mem = KGMem(quiet, driver=driver, embedder=embedder)
    try:
        for n, ns in enumerate(names):
            # the same words in every namespace, plus a marker of the namespace itself
            mem.turn(session="standup", role="user", text=f"the deploy pipeline broke again marker{n}", ref="m1", ns=ns)
            mem.turn(session="standup", role="assistant", text=f"rolled back the deploy marker{n}", ref="m2", ns=ns)
            mem.add_knowledge(f"Deploys need a green pipeline first marker{n}", type="fact", ns=ns)
            obs = mem.tool_result(
                "deploy", {"env": "prod"}, error="deploy failed: pipeline red", session="standup", ns=ns
            )
            mem.resolve(obs, f"rerun the flaky pipeline stage marker{n}", ns=ns)

        for n, ns in enumerate(names):
            own = f"marker{n}"
            again = mem.tool_result(
                "deploy", {"env": "prod"}, error="deploy failed: pipeline red", session="standup", ns=ns
            )
            assert [f.description for f in again.fixes] == [f"rerun the flaky pipeline stage {own}"]
            for kinds in (None, "message", "knowledge", "error", "fix"):
                result = mem.search("deploy pipeline broke rerun green marker", k=50, ns=ns, kinds=kinds, preset="deep")
                assert result.hits, (ns, kinds)
                for hit in result.hits:
                    assert _ns_of(driver, hit.id) == ns, (ns, kinds, hit)
                    assert not any(f"marker{m}" in hit.text for m in range(len(names)) if m != n), (ns, hit.text)
                    for node in hit.provenance.path[::2]:  # graph expansion: every node on the path
                        assert _ns_of(driver, node) == ns, (ns, hit.provenance.path)
            assert own in mem.context("deploy pipeline", ns=ns).text
    finally:
        mem.close()
        for ns in names:
            delete_namespace(graph, None, ns)


def _ns_of(driver, node_id: str) -> str | None:  # noqa: ANN001
    records, _, _ = driver.execute_query("MATCH (n {id: $id}) RETURN n.ns AS ns", id=node_id)
    found = {r["ns"] for r in records}
    assert len(found) == 1, (node_id, found)  # ids embed the namespace: never shared
    return found.pop()

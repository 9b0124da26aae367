"""Remote engines by configuration only: a Chroma server (``[chroma] url``) and Neo4j through
the ``neo4j://`` routing scheme (what a cluster or Aura uses), on the real stack."""

from __future__ import annotations

import chromadb

from kgmem import KGMem
from kgmem.config import ChromaSettings, Settings
from kgmem.graph import GraphStore, connect
from kgmem.vectors.store import collection_name

REFUSED = "could not connect to server: Connection refused (10.0.0.5:5432)"


def _routing(settings: Settings) -> Settings:
    uri = settings.neo4j.uri
    assert uri.startswith("bolt://"), "the local test server is reached over bolt://"
    return settings.model_copy(update={"neo4j": settings.neo4j.model_copy(update={"uri": "neo4j://" + uri[7:]})})


def test_neo4j_routing_scheme_reads_and_writes(settings: Settings, ns: str) -> None:
    routed = _routing(settings)
    driver = connect(routed)
    try:
        driver.verify_connectivity()
        graph = GraphStore(driver, routed.neo4j.database)
        assert graph.read("learning/error_by_id", ns=ns, id="0" * 32) == []  # a read through the router
        routing = driver.execute_query("CALL dbms.routing.getRoutingTable({}) YIELD servers RETURN servers")
        roles = {s["role"] for s in routing.records[0]["servers"]}
        assert {"WRITE", "READ", "ROUTE"} <= roles  # the driver really routes (not plain bolt)
    finally:
        driver.close()


def test_client_on_a_chroma_server_and_routed_neo4j(settings: Settings, ns: str, embedder, chroma_url: str) -> None:
    remote = _routing(settings).model_copy(update={"chroma": ChromaSettings(url=chroma_url)})
    with KGMem(remote, embedder=embedder) as mem:
        obs = mem.tool_result("psql", {"port": 5432}, error=REFUSED, session="r1")
        mem.tool_result("psql", {"port": 6432}, session="r1")
        mem.resolve(obs, "use the pgbouncer port 6432")
        mem.add_knowledge("The staging database listens on pgbouncer port 6432")
        again = mem.tool_result("psql", {"port": 5432}, error=REFUSED.replace("10.0.0.5", "10.9.9.9"), session="r2")
        assert [f.description for f in again.fixes] == ["use the pgbouncer port 6432"]
        result = mem.search("which port does the staging database use", k=5)
        assert any("6432" in h.text and "vector" in h.provenance.legs for h in result.hits)
    # The vectors live in the server, not on local disk.
    server = chromadb.HttpClient(host="127.0.0.1", port=int(chroma_url.rsplit(":", 1)[1]))
    names = {c.name for c in server.list_collections()}
    assert collection_name(ns, "error") in names and collection_name(ns, "fix") in names
    assert server.get_collection(collection_name(ns, "error")).count() == 1
    for kind in ("error", "fix", "knowledge"):  # this test's namespace leaves nothing behind on the server
        if collection_name(ns, kind) in names:
            server.delete_collection(collection_name(ns, kind))

"""AsyncKGMem on remote engines: Chroma's async HTTP client against a Chroma server and the
async Neo4j driver through the ``neo4j://`` routing scheme."""

from __future__ import annotations

import asyncio

import chromadb

from kgmem import AsyncKGMem, KGMem
from kgmem.async_stores import AsyncHttpVectorStore
from kgmem.config import ChromaSettings, Settings
from kgmem.vectors.store import collection_name
from tests.settled import hit_scores, settled


def test_async_client_on_a_chroma_server_matches_the_sync_client(
    settings: Settings, ns: str, embedder, chroma_url: str
) -> None:
    uri = settings.neo4j.uri
    remote = settings.model_copy(
        update={
            "chroma": ChromaSettings(url=chroma_url),
            "neo4j": settings.neo4j.model_copy(update={"uri": "neo4j://" + uri.split("://", 1)[1]}),
        }
    )

    question = "which port does the staging database use"

    async def write() -> tuple[str, str, list[str]]:
        async with AsyncKGMem(remote, embedder=embedder) as amem:
            assert isinstance(amem.vectors, AsyncHttpVectorStore)
            item = await amem.add_knowledge("The staging database listens on pgbouncer port 6432")
            mid = await amem.turn(session="r1", role="user", text="the staging db moved to port 6432 last week")
            return item["id"], mid, [i["id"] for i in await amem.learnings()]

    async def async_search() -> list[tuple[str, float]]:
        async with AsyncKGMem(remote, embedder=embedder) as amem:
            result = await amem.search(question, k=5)
            assert any("vector" in h.provenance.legs for h in result.hits)
            return hit_scores(result)

    kid, mid, listed = asyncio.run(write())
    assert listed == [kid]
    with KGMem(remote, embedder=embedder) as mem:  # the sync client reads what the async one wrote, alike

        def both() -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
            return asyncio.run(async_search()), hit_scores(mem.search(question, k=5))

        async_hits, sync_hits = settled(both)
    assert {kid, mid} <= {i for i, _ in async_hits}
    assert [i for i, _ in sync_hits] == [i for i, _ in async_hits]
    server = chromadb.HttpClient(host="127.0.0.1", port=int(chroma_url.rsplit(":", 1)[1]))
    try:
        assert server.get_collection(collection_name(ns, "knowledge")).count() == 1
        assert server.get_collection(collection_name(ns, "message")).count() == 1
    finally:
        for kind in ("knowledge", "message"):
            try:
                server.delete_collection(collection_name(ns, kind))
            except Exception:  # noqa: BLE001 - absent
                pass

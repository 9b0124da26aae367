"""Graph RAG expansion does not walk a contradicted SIMILAR_TO link (follow-up): once a fix
one error lent failed on its look-alike (docs/learning.md "Failed borrowed fixes"), a search that
starts at the look-alike no longer reaches the other error, or its fixes, through that link.
Real Neo4j + Chroma + embedding model."""

from __future__ import annotations

# The npm 404 look-alikes of tests/integration/learning/test_failed_fixes.py (conftest.py puts
# that directory on sys.path).
from near_twins import PRIVATE, SPELLING, TYPO  # type: ignore[import-not-found]

from kgmem import KGMem

QUERY = "you should bug the author to publish it, or use the name yourself"


def _similar_paths(mem: KGMem, ns: str) -> list[tuple[str, ...]]:
    result = mem.search(QUERY, ns=ns, k=10, kinds=["error", "fix"], preset="deep")
    return [h.provenance.path for h in result.hits if "SIMILAR_TO" in h.provenance.path]


def test_expansion_stops_at_a_contradicted_similar_link(mem: KGMem, ns: str) -> None:
    typo = mem.tool_result("npm", {"pkg": "lodahs"}, error=TYPO, session="s1")
    mem.resolve(typo, SPELLING)
    twin = mem.tool_result("npm", {"pkg": "@acme/ui"}, error=PRIVATE, session="s2")
    [borrowed] = [f for f in twin.fixes if f.description == SPELLING]
    assert borrowed.kind == "similar" and borrowed.via_error_id == typo.id  # the pair is linked

    # Before any evidence, the search from the look-alike walks the link to the other error.
    before = _similar_paths(mem, ns)
    assert any(typo.id in p for p in before), before  # (the query names only the look-alike's words)

    mem.fix_applied(twin, borrowed.description, success=False)  # the borrowed fix failed here
    after = _similar_paths(mem, ns)
    assert after == [], after

    # Confirming evidence (the same rule as learning's: contradicted <= confirmed lends again)
    # reopens the link for expansion too.
    mem.resolve(typo, "clear the npm cache", session="s3")
    mem.fix_applied(twin, "clear the npm cache", success=True)
    assert any(typo.id in p for p in _similar_paths(mem, ns))

"""Proof by outcome: a borrowed fix reported working on the error that borrowed it proves the two
errors one (SIMILAR_TO.proven_by_outcome), so the next occurrence acts on it; a reported failure
refutes the link for good; each report counts once; a plain retry proves nothing
(kgmem/learning/identity.py, link_proof). Real Neo4j + Chroma + embedding model."""

from __future__ import annotations

from near_twins import PRIVATE, SPELLING, TYPO, similar_link  # type: ignore[import-not-found]

from kgmem import KGMem

# One nginx error (an upstream host compose has not started) as two reports: the second drops the
# compose line "nginx exited with code 1", so their core templates differ and the text proves nothing.
NGINX = (
    'nginx       | 2020/07/06 05:21:35 [emerg] 1#1: host not found in upstream "php" in '
    '/etc/nginx/conf.d/default.conf:16\nnginx       | nginx: [emerg] host not found in upstream "php" in '
    "/etc/nginx/conf.d/default.conf:16\nnginx exited with code 1"
)
NGINX_AGAIN = (
    '2024/06/22 16:54:59 [emerg] 1#1: host not found in upstream "pipedfrontend:80" in '
    "/etc/nginx/conf.d/pipedfrontend.conf:2\nnginx: [emerg] host not found in upstream "
    '"pipedfrontend:80" in /etc/nginx/conf.d/pipedfrontend.conf:2'
)
START_UPSTREAM = "start the upstream service before nginx (depends_on)"


def _fix(obs, description: str):
    found = [f for f in obs.fixes if f.description == description]
    return found[0] if found else None


def test_a_borrowed_fix_that_worked_proves_the_link_and_acts_next_time(mem: KGMem, driver, ns: str) -> None:
    first = mem.tool_result("nginx", {}, error=NGINX)
    mem.correction(START_UPSTREAM, error=first)

    variant = mem.tool_result("nginx", {}, error=NGINX_AGAIN)
    borrowed = _fix(variant, START_UPSTREAM)
    assert borrowed is not None and borrowed.kind == "similar" and borrowed.borrowed_from == first.id
    assert not borrowed.auto_apply and not borrowed.identity and borrowed.proof is None  # text: no proof
    assert similar_link(driver, ns, variant.id, first.id)["identity"] is False

    mem.fix_applied(variant, START_UPSTREAM, success=True)
    link = similar_link(driver, ns, variant.id, first.id)
    assert link["proven_by_outcome"] == 1 and link["confirmed"] == 1 and link.get("contradicted", 0) == 0
    assert link["identity"] is False  # the text's verdict stays as it was; the outcome is recorded beside it

    again = mem.tool_result("nginx", {}, error=NGINX_AGAIN)
    assert again.id == variant.id
    acted = _fix(again, START_UPSTREAM)
    assert acted is not None and acted.auto_apply and acted.identity and acted.proof == "outcome"
    assert acted.kind == "similar" and acted.borrowed_from == first.id and acted.confidence == 1.0
    assert acted.match_score is not None and acted.match_score < 1.0  # the evidence: not the text

    mem.fix_applied(again, START_UPSTREAM, success=True)  # another success (or a retried report) ...
    assert similar_link(driver, ns, variant.id, first.id)["proven_by_outcome"] == 1  # ... proves nothing more


def test_a_failure_refutes_the_link_for_good(mem: KGMem, driver, ns: str) -> None:
    typo = mem.tool_result("npm", {"pkg": "lodahs"}, error=TYPO)
    mem.correction(SPELLING, error=typo)
    twin = mem.tool_result("npm", {"pkg": "@acme/ui"}, error=PRIVATE)
    lent = _fix(twin, SPELLING)
    assert lent is not None and not lent.auto_apply

    mem.fix_applied(twin, SPELLING, success=False)  # the look-alike: the correction did not help
    # Later both errors share a fix that worked (the link lends again: confirmed = contradicted) ...
    mem.resolve(typo, "npm login to the registry")
    mem.resolve(twin, "npm login to the registry")
    link = similar_link(driver, ns, twin.id, typo.id)
    assert (link["contradicted"], link["confirmed"], link["proven_by_outcome"]) == (1, 1, 1)
    # ... yet nothing borrowed over it acts any more: the failure refuted it.
    for _ in range(3):  # by id: three reports (one Observation's would count once)
        mem.resolve(typo.id, "clear the npm cache")
    later = mem.tool_result("npm", {"pkg": "@acme/ui"}, error=PRIVATE)
    cache = _fix(later, "clear the npm cache")
    assert cache is not None and cache.kind == "similar" and cache.confidence < 1.0
    assert not cache.auto_apply and not cache.identity and cache.proof is None


def test_a_plain_retry_that_worked_on_both_proves_nothing(mem: KGMem, driver, ns: str) -> None:
    first = mem.tool_result("nginx", {"conf": "a"}, error=NGINX, session="s1")
    mem.tool_result("nginx", {"conf": "a"}, session="s1")  # the same call works: "retry with the same parameters"
    variant = mem.tool_result("nginx", {"conf": "b"}, error=NGINX_AGAIN, session="s2")
    retry = [f for f in variant.fixes if f.description.endswith("retry with the same parameters")]
    assert retry and retry[0].kind == "similar"
    mem.tool_result("nginx", {"conf": "b"}, session="s2")  # ... and it worked here too
    link = similar_link(driver, ns, variant.id, first.id)
    assert link["confirmed"] == 1 and link.get("proven_by_outcome", 0) == 0

    mem.correction(START_UPSTREAM, error=first)
    again = mem.tool_result("nginx", {"conf": "b"}, error=NGINX_AGAIN, session="s3")
    borrowed = _fix(again, START_UPSTREAM)
    assert borrowed is not None and not borrowed.auto_apply and borrowed.proof is None

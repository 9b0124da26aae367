"""Error texts of the near-twin tests (and a read of the link between them), shared by the learning and retrieval integration tests.

The look-alike pair: the same npm 404 for a misspelt public package (fix: the name) and for a
private scoped package (fix: log in to the registry). Matching links them (same words).
"""

TYPO = (
    "npm ERR! code E404\nnpm ERR! 404 Not Found - GET https://registry.npmjs.org/lodahs - Not found\n"
    "npm ERR! 404  'lodahs@*' is not in this registry."
)
PRIVATE = (
    "npm ERR! code E404\nnpm ERR! 404 Not Found - GET https://registry.npmjs.org/@acme%2fui - Not found\n"
    "npm ERR! 404  '@acme/ui@^2.0.0' is not in this registry.\n"
    "npm ERR! 404 You should bug the author to publish it (or use the name yourself!)"
)
SPELLING = "fix the package name's spelling"


def similar_link(driver, ns: str, a: str, b: str) -> dict:  # type: ignore[no-untyped-def]
    """The one SIMILAR_TO link between error patterns ``a`` and ``b`` of ``ns``, as a dict of its properties."""
    records, _, _ = driver.execute_query(
        "MATCH (:ErrorPattern {ns: $ns, id: $a})-[s:SIMILAR_TO]-(:ErrorPattern {ns: $ns, id: $b}) RETURN s {.*} AS s",
        ns=ns,
        a=a,
        b=b,
    )
    assert len(records) == 1, records
    return records[0]["s"]

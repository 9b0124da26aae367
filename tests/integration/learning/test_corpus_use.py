"""measure_with_use in benchmarks/error_corpus.py on the real stack (Neo4j, Chroma, the embedding model): a
variant kgmem missed and the agent then resolved lends the fix to the variants after it."""

from __future__ import annotations

from benchmarks.error_corpus import CorpusRow, measure_fix_recall, measure_with_use
from kgmem import KGMem
from kgmem.maintenance import delete_namespace

SRC = "https://github.com/googleapis/google-auth-library-python/issues/1"
# Two wordings of Google's missing Application Default Credentials (a match score of ~0.24: below the
# threshold, no LLM here), then the second wording again behind a log prefix (the same template).
ROWS = [
    CorpusRow(
        "v",
        "adc",
        "permission",
        "google.auth.exceptions.DefaultCredentialsError: Could not automatically "
        "determine credentials. Please set GOOGLE_APPLICATION_CREDENTIALS or explicitly create credentials "
        "and re-run the application.",
        SRC,
    ),
    CorpusRow(
        "v",
        "adc",
        "permission",
        "Error: Your default credentials were not found. To set up Application "
        "Default Credentials, see https://cloud.google.com/docs/authentication/external/set-up-adc",
        SRC,
    ),
    CorpusRow(
        "v",
        "adc",
        "permission",
        "2024-05-01T10:00:00Z ERROR Your default credentials were not found. To set "
        "up Application Default Credentials, see https://cloud.google.com/docs/authentication/external/"
        "set-up-adc",
        SRC,
    ),
    CorpusRow(
        "n",
        "dns",
        "general",
        'could not translate host name "db" to address: Name or service not known',
        SRC,
        confusable_with="adc",
    ),
]


def test_a_variant_the_agent_resolved_lends_its_fix_to_the_next(mem: KGMem, ns: str, graph) -> None:
    once = measure_fix_recall(mem, ns, ROWS, "test")
    assert once.variants == 2 and once.variants_fixed == 0  # neither later wording matches the first

    try:
        use = measure_with_use(mem, ns + "-use", ROWS, "test")
    finally:
        delete_namespace(graph, None, ns + "-use")
    assert (use.variants, use.variants_fixed) == (2, 1), use.summary()  # the third, through the second
    assert use.hard_negatives == 1 and use.negatives_fixed == [], use.summary()
    assert use.by_file[""].variants_fixed == 1

"""retrieval/expand walks SIMILAR_TO links by the same rule as learning lends over them."""

import re

from kgmem import cypher

# "a link lends / is walked while contradicted <= confirmed", whatever the variable is called
_RULE = re.compile(r"coalesce\((\w+)\.contradicted, 0\) <= coalesce\(\1\.confirmed, 0\)")


def test_expand_and_learning_test_links_with_the_same_rule() -> None:
    for name in (
        "retrieval/expand",
        "learning/fragments/known_fix_similar",
        "learning/apply_events",
        "learning/known_fixes",
        "learning/link_similar",
    ):
        assert _RULE.search(cypher.load(name)), name

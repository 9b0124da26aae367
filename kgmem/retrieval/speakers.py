"""Which items a question's named speaker did not say: the speaker prior of a Graph RAG search.

Pure (no I/O); unit-tested in tests/unit/retrieval/test_speakers.py.

In a conversation among named people a question about one of them ("What activities does Melanie
partake in?") is nearly always answered by that person's own turns (LoCoMo dev: 90–100 % of the
evidence of questions naming one speaker, in every category), while the legs also bring the other
speakers' turns that mention the name ("Hey Melanie!"). The graph knows who said each turn (a
Message's ``role``), so the ranking can prefer the named speaker's turns: every other speaker's item
scores × ``speaker_prior``. Items without a speaker (knowledge, errors, fixes) and questions that name
no speaker of the pool are left alone.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence


def named_speakers(names: Sequence[str], roles: Iterable[str | None]) -> frozenset[str]:
    """The question's ``names`` (lower-case, as :func:`kgmem.retrieval.text.query_names` gives them)
    that are a word of some item's role (``"Melanie"``, ``"Melanie Smith"``)."""
    spoken = {word for role in roles if role for word in role.lower().split()}
    return frozenset(n for n in names if n in spoken)


def speaker_factors(named: frozenset[str], roles: Mapping[str, str | None], prior: float) -> dict[str, float]:
    """Per item id, ``prior`` for an item spoken by someone the question does not name; items said by
    a named speaker, or by nobody, are absent (factor 1). Empty when nobody is named or ``prior`` is 1."""
    if not named or prior >= 1.0:
        return {}
    return {item_id: prior for item_id, role in roles.items() if role and not named.intersection(role.lower().split())}

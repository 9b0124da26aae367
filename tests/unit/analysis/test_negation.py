"""How far a negation reaches (kgmem.analysis.negation)."""

from __future__ import annotations

import pytest

from kgmem.analysis.negation import AFFIRMING, AVOIDING, main_clause, negated_opposite


def _rewrite(text: str) -> str:
    for pattern, repl in AFFIRMING + AVOIDING:
        text = pattern.sub(repl, text)
    return " ".join(text.split())


@pytest.mark.parametrize(
    ("text", "rewritten"),
    [
        ("i can not wait for the trip", "i look forward for the trip"),
        ("i do not mind the noise", "i fine with the noise"),
        ("the noise does not bother me", "the noise fine with me"),
        ("do not bother with a testing section", "do not bother with a testing section"),  # the imperative denies
        ("i not only run but also swim", "i run and swim"),
        ("black, no sugar, no cream", "black, no sugar or cream"),
        ("i hardly ever drink", "i rarely drink"),
        ("i am on call, nobody else", "i am on call, only"),
        ("i stay away from sugar", "i avoid sugar"),
        ("keep emojis out of comments", "avoid emojis in comments"),
    ],
)
def test_negations_that_affirm_or_avoid(text, rewritten):
    assert _rewrite(text) == rewritten


def test_a_relative_clause_keeps_its_negation_to_itself():
    assert "not" not in main_clause("The demo is recorded for people who can not make it.")
    assert "not" in main_clause("The demo is not recorded.")


def test_not_x_of_a_two_valued_set_is_its_other_value():
    sets = [
        [frozenset({"public"}), frozenset({"privat"})],
        [frozenset({"small"}), frozenset({"medium"}), frozenset({"larg"})],
    ]
    assert negated_opposite(frozenset({"public"}), frozenset({"privat"}), sets)
    assert not negated_opposite(frozenset({"public", "repo"}), frozenset({"privat"}), sets)  # it negates more
    assert not negated_opposite(frozenset({"small"}), frozenset({"larg"}), sets)  # three values: "not small" is open
    assert not negated_opposite(frozenset({"privat"}), frozenset({"privat"}), sets)

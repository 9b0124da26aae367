"""The speaker prior: which items a question's named speaker did not say."""

from __future__ import annotations

from kgmem.retrieval.speakers import named_speakers, speaker_factors

ROLES = {"t1": "Melanie", "t2": "Caroline", "t3": None, "t4": "Caroline Smith", "t5": "user"}


def test_a_name_is_a_speaker_when_some_role_has_it_as_a_word():
    assert named_speakers(["melanie", "paris"], ROLES.values()) == {"melanie"}
    assert named_speakers(["smith"], ROLES.values()) == {"smith"}
    assert named_speakers(["paris"], ROLES.values()) == frozenset()


def test_other_speakers_items_get_the_prior_and_nobody_elses_do():
    assert speaker_factors(frozenset({"melanie"}), ROLES, 0.8) == {"t2": 0.8, "t4": 0.8, "t5": 0.8}
    # Both speakers named: only the items of neither.
    assert speaker_factors(frozenset({"melanie", "caroline"}), ROLES, 0.5) == {"t5": 0.5}


def test_no_named_speaker_or_prior_one_changes_nothing():
    assert speaker_factors(frozenset(), ROLES, 0.8) == {}
    assert speaker_factors(frozenset({"melanie"}), ROLES, 1.0) == {}

"""The extraction prompt carries existing knowledge, low-confidence items marked."""

from kgmem.analysis.prompt import SYSTEM, build_prompt


def test_prompt_lists_messages_and_marks_low_confidence():
    prompt = build_prompt(
        [{"role": "user", "text": "I prefer tabs"}, {"role": "assistant", "text": "Noted"}],
        [
            {"type": "fact", "content": "Port is 8080", "confidence": 0.8},
            {"type": "preference", "content": "Uses spaces", "confidence": 0.2},
            {"type": "fact", "content": "Manual one", "confidence": 0.2, "is_manual": True},
        ],
    )
    assert "[user] I prefer tabs" in prompt and "[assistant] Noted" in prompt
    assert "- [fact] Port is 8080" in prompt
    assert "- [low-confidence] [preference] Uses spaces" in prompt
    assert "[low-confidence] [fact] Manual one" not in prompt
    assert "contradicts" in SYSTEM and "JSON array" in SYSTEM


def test_session_end_note_and_empty_knowledge():
    prompt = build_prompt([{"role": "user", "text": "hi"}], [], session_end=True)
    assert "highly confident" in prompt and "Existing knowledge" not in prompt


def test_superseded_items_are_listed_apart_as_earlier_values():
    prompt = build_prompt(
        [{"role": "user", "text": "Who is my manager again?"}],
        [
            {"type": "fact", "content": "The user's manager is Tomás", "confidence": 0.5, "valid_until": None},
            {
                "type": "fact",
                "content": "The user's manager is Priya",
                "confidence": 0.2,
                "valid_until": "2026-06-01T10:00:00+00:00",
            },
        ],
    )
    current, earlier = prompt.split("## Earlier values")
    assert "- [fact] The user's manager is Tomás" in current and "Priya" not in current
    assert "- [superseded 2026-06-01] [fact] The user's manager is Priya" in earlier
    assert "Tomás" not in earlier and "Earlier values" in SYSTEM


def test_only_superseded_items_leave_no_current_section():
    prompt = build_prompt(
        [{"role": "user", "text": "hi"}],
        [{"type": "fact", "content": "Port is 8080", "confidence": 0.2, "valid_until": "2026-06-01T10:00:00+00:00"}],
    )
    assert "Existing knowledge" not in prompt and "[superseded 2026-06-01] [fact] Port is 8080" in prompt

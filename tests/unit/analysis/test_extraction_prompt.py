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

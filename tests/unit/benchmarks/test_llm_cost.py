"""The LLM-cost benchmark's pieces: LoCoMo sessions read in order, and the mocked model's answers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import llm_cost
from kgmem.analysis.prompt import build_prompt
from kgmem.analysis.schema import parse_items


def test_sessions_are_read_in_order_with_image_captions(tmp_path: Path) -> None:
    conv = {
        "speaker_a": "A",
        "speaker_b": "B",
        "session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "hi"}],
        "session_2": [
            {"speaker": "B", "dia_id": "D2:1", "text": "look", "blip_caption": "a dog"},
            {"speaker": "A", "dia_id": "D2:2", "text": "nice"},
        ],
    }
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps([{"sample_id": "c1", "conversation": conv}, {"sample_id": "c2", "conversation": {}}]))
    full = llm_cost.load_sessions(path, quick=False)
    assert [sid for sid, _ in full] == ["c1", "c2"]
    sessions = full[0][1]
    assert [s.key for s in sessions] == ["session_1", "session_2"]
    assert sessions[1].turns[0] == ("B", "look [shares an image: a dog]", "D2:1")
    assert [sid for sid, _ in llm_cost.load_sessions(path, quick=True)] == ["c1"]
    with pytest.raises(FileNotFoundError, match="KGMEM_BENCH_DATA"):
        llm_cost.load_sessions(tmp_path / "missing.json", quick=False)


def test_the_mocked_model_answers_valid_items_for_a_window_and_none_for_a_review() -> None:
    messages = [{"role": "Caroline", "text": "I started pottery classes last week."}, {"role": "Mel", "text": "Fun!"}]
    window = llm_cost._answer_items(build_prompt(messages, []))
    parsed = parse_items(json.dumps(window))
    assert not parsed.malformed and [i.content for i in parsed.items] == [
        "Caroline said: I started pottery classes last week."
    ]
    assert llm_cost._answer_items(build_prompt(messages, [], session_end=True)) == []


def test_an_adjudication_is_told_apart_and_answered_for_every_pair() -> None:
    prompt = 'Each pair...\n<pair number="1">\n<old>a</old>\n<new>b</new>\n</pair>\n<pair number="2">\n</pair>'
    assert llm_cost._kind(prompt) == "adjudication"
    assert llm_cost._answer(prompt) == {
        "verdicts": [{"pair": 1, "relation": "distinct"}, {"pair": 2, "relation": "distinct"}]
    }
    assert llm_cost._kind(build_prompt([{"role": "A", "text": "hello there"}], [])) == "window"
    assert llm_cost._kind(build_prompt([], [], session_end=True)) == "session"

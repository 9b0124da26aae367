"""Long error messages are bounded before anything reads them: head and tail kept, the middle elided,
and what decides matching (core template, identity keys, category, stored example) unchanged."""

from __future__ import annotations

import pytest
from benchmarks.error_corpus import load_corpus

from kgmem.errors import ValidationError
from kgmem.learning.categories import _window
from kgmem.learning.normalize import ERROR_MAX_CHARS, bound_error_text
from kgmem.learning.plan import ErrorDescriber, describe_error, prepare

# Stack frames of the kinds real tools print in bulk: the core extractor drops them.
JAVA_FRAMES = "".join(f"\tat com.example.service.Handler{i}.handle(Handler{i}.java:{i})\n" for i in range(40_000))
PY_FRAMES = "".join(f'  File "/srv/app/mod{i}.py", line {i}, in f{i}\n    x = g({i})\n' for i in range(15_000))


def test_a_short_message_is_returned_as_it_is() -> None:
    text = "ValueError: bad value\n" * 10
    assert bound_error_text(text) is text
    assert bound_error_text("x" * ERROR_MAX_CHARS) == "x" * ERROR_MAX_CHARS


def test_a_long_message_keeps_its_head_and_tail_within_the_bound() -> None:
    text = "HEAD-LINE error one\n" + "middle line\n" * 100_000 + "TAIL-LINE ValueError: last\n"
    out = bound_error_text(text, 1000)
    assert len(out) <= 1000
    assert out.startswith("HEAD-LINE error one\n") and out.endswith("TAIL-LINE ValueError: last\n")
    assert "\n... more\n" in out
    assert bound_error_text(out, 1000) == out  # idempotent: every entry point may apply it


def test_the_tail_starts_at_a_line_start() -> None:
    out = bound_error_text("a" * 5000 + "\n" + "".join(f"line {i}\n" for i in range(2000)), 1000)
    assert out.split("\n... more\n")[1].startswith("line ")


def test_one_huge_line_is_cut_at_characters() -> None:
    out = bound_error_text("ValueError: " + "z" * 1_000_000, 2000)
    assert len(out) <= 2000 and out.startswith("ValueError: z")


def test_prepare_bounds_the_message_of_a_string_and_of_an_exception() -> None:
    big = "Error: disk quota exceeded\n" + "log line\n" * 200_000
    assert len(prepare("t", {}, big).message or "") <= ERROR_MAX_CHARS
    event = prepare("t", {}, OSError(big), error_max_chars=500)
    assert event.message is not None and len(event.message) <= 500 and event.message.startswith("OSError: Error")
    with pytest.raises(ValidationError, match="error"):
        prepare("t", {}, "   ")


def test_the_describer_gives_a_long_message_the_id_prepare_gives_it() -> None:
    big = 'psql: FATAL: role "x" does not exist\n' + "DETAIL: retrying\n" * 50_000 + "giving up\n"
    event = prepare("psql", {}, big)
    describer = ErrorDescriber()
    assert describer("ns", "psql", big).id == describer("ns", "psql", event.message or "").id


def test_no_corpus_message_is_changed_by_the_default_bound() -> None:
    # The corpus figures (docs/learning.md) are those of unbounded messages: the bound must not touch them.
    assert all(bound_error_text(r.text) == r.text for r in load_corpus())
    assert all(_window(r.text) == r.text for r in load_corpus())  # categories read every corpus message whole


@pytest.mark.parametrize("where", ["frames after", "frames before"])
def test_frames_around_an_error_decide_nothing_bounded_or_not(where: str) -> None:
    # What matching and categories read is the same for the bounded and the whole message: the error at the
    # head (Java: exception first, frames after) or at the tail (Python: frames first, exception last), with
    # 20-40 KB of frames on the other side (the whole message is described too, so not a megabyte here).
    lines = (JAVA_FRAMES if where == "frames after" else PY_FRAMES).splitlines(keepends=True)
    frames = "".join(lines[:600]) if where == "frames after" else "".join(lines[-600:])
    assert len(frames) > 4 * ERROR_MAX_CHARS
    for row in load_corpus()[::150]:
        padded = row.text + "\n" + frames if where == "frames after" else frames + row.text
        got, want = describe_error("ns", "t", bound_error_text(padded)), describe_error("ns", "t", padded)
        assert (got.template, got.keys, got.category, got.signature) == (
            want.template,
            want.keys,
            want.category,
            want.signature,
        ), row.text[:200]

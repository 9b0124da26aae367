"""The generated reference pages (kgmem/reference.py): docs/api.md and docs/configuration.md are what
the code generates, and the generator reads what the declaration and the settings model hold."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from kgmem import api, config, reference


def test_committed_pages_equal_what_the_code_generates() -> None:
    stale = reference.stale()
    assert not stale, f"{[str(p) for p in stale]} differ from the code: run `python -m kgmem.reference` and commit"


def test_every_operation_is_on_the_api_page_with_its_surfaces() -> None:
    page = reference.api_markdown()
    for op in api.OPERATIONS:
        assert f"### `{op.name}`" in page, op.name
        if api.MCP in op.surfaces:
            assert f"MCP tool: `{op.tool_name}`" in page, op.name
        for param in op.params:
            assert f"| `{param.name}` |" in page, f"{op.name}.{param.name}"


def test_every_cli_command_is_on_the_api_page() -> None:
    page = reference.api_markdown()
    commands = reference.cli_commands()
    assert ("search",) in dict(commands) and ("learnings", "add") in dict(commands)
    for path, _ in commands:
        assert f"### `kgmem {' '.join(path)}`" in page, path


def test_cli_column_names_only_commands_that_exist() -> None:
    commands = dict(reference.cli_commands())
    assert reference.cli_command_of(api.operation("add_knowledge"), commands) == ("learnings", "add")
    assert reference.cli_command_of(api.operation("search"), commands) == ("search",)
    assert reference.cli_command_of(api.operation("turn"), commands) is None


def test_every_setting_is_on_the_configuration_page() -> None:
    page = reference.configuration_markdown()
    for name, model in reference.settings_sections():
        assert f"## `[{name}]`" in page
        for key in model.model_fields:
            assert f"`KGMEM_{name.upper()}__{key.upper()}`" in page, f"{name}.{key}"
    assert "`KGMEM_NAMESPACE`" in page and "`KGMEM_HOME`" in page
    assert config.Settings.model_fields["namespace"].default == "default" and '`"default"`' in page


class _Toy(BaseModel):
    # The first line of a comment above it
    # and its second line.
    alpha: int = Field(3, ge=1, le=9)  # and one at its end
    beta: str = "b"

    gamma: float = Field(0.5, description="From the model itself.")  # ignored: a description wins


def test_field_comments_are_the_lines_above_and_the_end_of_line() -> None:
    comments = reference.field_comments(_Toy)
    assert comments["alpha"] == "The first line of a comment above it and its second line. and one at its end"
    assert comments["beta"] == ""
    keys = {k.name: k for k in reference.section_keys("toy", _Toy)}
    assert keys["gamma"].description == "From the model itself."
    assert keys["alpha"].limits == "≥ 1, ≤ 9" and keys["alpha"].default == "`3`"
    assert keys["alpha"].env == "KGMEM_TOY__ALPHA"


def test_pointers_into_code_and_documents_are_dropped_from_descriptions() -> None:
    assert reference.clean_comment('Deferred repeats (docs/learning.md "Performance"): a repeat') == (
        "Deferred repeats: a repeat"
    )
    assert reference.clean_comment("Below this it is skipped (seed 003).") == "Below this it is skipped."
    assert reference.clean_comment("Dedup (kgmem/analysis/judge.py; tuned): stored") == "Dedup: stored"
    assert reference.clean_comment("an ONNX directory or an .onnx file") == "an ONNX directory or an .onnx file"


def test_write_puts_both_pages_under_a_root(tmp_path: Path) -> None:
    written = reference.write(tmp_path)
    assert set(written) == {reference.API_PAGE, reference.CONFIG_PAGE}
    assert reference.stale(tmp_path) == [] and reference.write(tmp_path) == []

"""`kgmem export | import | reindex | decay` end to end through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from kgmem.cli import main
from kgmem.kinds import KIND_LABELS


def test_export_import_reindex_decay_commands(analyst, tmp_path: Path) -> None:
    mem, _ = analyst
    ns = mem.namespace
    runner = CliRunner(env={"KGMEM_CHROMA__PATH": str(tmp_path / "chroma")})
    dump = tmp_path / "dump.jsonl"

    out = runner.invoke(main, ["export", "--ns", ns, str(dump)])
    assert out.exit_code == 0, out.output
    header, trailer = json.loads(dump.read_text().splitlines()[0]), json.loads(dump.read_text().splitlines()[-1])
    assert header["ns"] == ns and f"{trailer['nodes']} nodes" in out.output

    refused = runner.invoke(main, ["import", str(dump)])
    assert refused.exit_code == 1 and "use --replace" in refused.output

    out = runner.invoke(main, ["import", str(dump), "--replace"])
    assert out.exit_code == 0, out.output
    assert f"{trailer['nodes']} nodes, {trailer['relationships']} relationships (namespace replaced)" in out.output
    # the fresh Chroma directory got every vector back from the graph: one per node of a searchable kind
    # (tools, sessions, functions and concepts have no vectors)
    lines = [json.loads(line) for line in dump.read_text().splitlines()]
    searchable = sum(1 for line in lines if line.get("node") in KIND_LABELS.values())
    assert 0 < searchable < trailer["nodes"]
    assert f"vectors rebuilt: {searchable}" in out.output

    out = runner.invoke(main, ["reindex", "--ns", ns, "--missing-only"])
    assert out.exit_code == 0 and "fixed: 0 missing/pending vectors" in out.output

    out = runner.invoke(main, ["decay", "--ns", ns])
    assert out.exit_code == 0 and "1 knowledge items lowered" in out.output


def test_import_of_a_bad_file_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"kgmem_export": 1, "ns": "x"}\n{"node": "Robot", "id": "r", "props": {}}\n')
    out = CliRunner().invoke(main, ["import", str(bad)])
    assert out.exit_code == 1
    assert "bad.jsonl:2: label 'Robot' is not allowed" in out.output

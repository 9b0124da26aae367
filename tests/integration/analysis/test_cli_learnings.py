"""`kgmem learnings list|add|edit|remove|reset` against the real stack."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kgmem.cli import main


@pytest.fixture
def run(settings, embedder, monkeypatch):
    # The CLI builds its own KGMem per command; hand it the session's (real) model instead of
    # loading it again for every invocation.
    monkeypatch.setattr("kgmem.client.Embedder", lambda *a, **k: embedder)
    runner = CliRunner(env={"KGMEM_NAMESPACE": settings.namespace, "KGMEM_CHROMA__PATH": str(settings.chroma_path)})

    def invoke(*args: str, code: int = 0):
        result = runner.invoke(main, ["learnings", *args])
        assert result.exit_code == code, (result.output, result.exception)
        return result

    return invoke


def listed(run, *extra):
    return json.loads(run("list", "--json", *extra).output)


def test_learnings_cli_roundtrip(run, q):
    out = run("add", "--type", "preference", "--content", "Use ruff for formatting").output
    assert "manual" in out and "1.000" in out
    (item,) = listed(run)
    assert item["is_manual"] and item["confidence"] == 1.0 and item["type"] == "preference"
    kid = item["id"]

    run("edit", "--id", kid, "--content", "Use ruff for linting and formatting")
    (item,) = listed(run)
    assert item["content"] == "Use ruff for linting and formatting" and item["id"] == kid
    assert q("MATCH (k:Knowledge {ns: $ns, id: $id}) RETURN k.vector_pending AS p", id=kid) == [{"p": False}]

    run("reset", "--id", kid)
    (item,) = listed(run)
    assert item["confidence"] == 0.5 and not item["is_manual"]
    assert listed(run, "--min-confidence", "0.6") == []
    assert listed(run, "--type", "fact") == []

    run("remove", "--id", kid)
    assert listed(run) == []
    (item,) = listed(run, "--all")
    assert not item["is_active"]
    assert "inactive" in run("list", "--all").output


def test_learnings_cli_errors_name_the_field(run):
    result = run("remove", "--id", "0" * 32, code=1)
    assert "id: no knowledge item" in result.output
    result = run("add", "--type", "opinion", "--content", "whatever it is", code=2)
    assert "--type" in result.output
    run("list", "--min-confidence", "2", code=2)
    result = run("add", "--type", "fact", "--content", "x", code=1)
    assert "content:" in result.output


def test_learnings_history_shows_the_chain_oldest_first(run, mem):
    # Another amount of the same measure: a contradiction the offline judge calls (rule other_amount).
    mem.ingest([{"type": "knowledge", "content": "The API listens on port 8080.", "ts": "2026-01-05T09:00:00Z"}])
    mem.ingest([{"type": "knowledge", "content": "The API listens on port 9090.", "ts": "2026-02-05T09:00:00Z"}])
    items = {i["content"]: i for i in listed(run)}
    new = items["The API listens on port 9090."]
    chain = json.loads(run("history", new["id"], "--json").output)
    assert [c["content"] for c in chain] == ["The API listens on port 8080.", "The API listens on port 9090."]
    assert chain[0]["valid_until"] == chain[1]["valid_from"] == "2026-02-05T09:00:00+00:00"
    lines = run("history", new["id"]).output.splitlines()
    assert lines[0].startswith("  2026-01-05") and lines[1].startswith("* 2026-02-05") and "now" in lines[1]
    assert "id: no knowledge item" in run("history", "0" * 32, code=1).output

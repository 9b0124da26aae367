"""forget on the other surfaces: AsyncKGMem (the same operation on the async stores) and the CLI."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kgmem.cli import main


def test_both_clients_forget_a_session(client, ns):
    for i in range(3):
        client.turn(session="s1", role="user", text=f"thing number {i} to forget", ref=str(i))
    client.turn(session="s2", role="user", text="something to keep", ref="k")
    client.flush()
    dry = client.forget(session="s1", dry_run=True)
    assert dry.counts["graph"]["Message"] == 3 and len(dry.items["Message"]) == 3
    done = client.forget(session="s1")
    assert done.counts["graph"]["Message"] == 3 and done.counts["vectors"]["message"] == 3
    assert client.search("thing number to forget", session="s1").hits == []
    assert [h.text for h in client.search("something to keep", session="s2", kinds=["message"]).hits] == [
        "something to keep"
    ]


@pytest.fixture
def cli(settings, embedder, monkeypatch):
    # The command builds its own client: it gets the session's model instead of loading it again.
    import kgmem.vectors

    class Shared:
        wrap = kgmem.vectors.Embedder.wrap

        def __new__(cls, *args, **kwargs):  # noqa: ANN204
            return embedder

    monkeypatch.setattr(kgmem.vectors, "Embedder", Shared)
    runner = CliRunner(env={"KGMEM_NAMESPACE": settings.namespace, "KGMEM_CHROMA__PATH": str(settings.chroma_path)})

    def invoke(*args: str, code: int = 0, stdin: str | None = None) -> str:
        result = runner.invoke(main, ["forget", *args], input=stdin)
        assert result.exit_code == code, result.output
        return result.output

    return invoke


def test_cli_forget_scopes_and_confirmation(cli, mem, ns):
    mem.turn(session="s1", role="user", text="a turn for the command line", ref="1")
    mem.flush()
    assert "no session 'nope'" in cli("--session", "nope", code=1)
    assert "one scope per call" in cli("--session", "s1", "--entity", "x", code=1)
    out = json.loads(cli("--session", "s1", "--dry-run", "--json"))
    assert out["dry_run"] and out["counts"]["graph"]["Message"] == 1
    assert "Aborted" in cli("--everything", code=1, stdin="n\n")
    assert mem.turns.messages(ns, "s1")  # nothing erased
    assert "erased" in cli("--session", "s1")
    assert mem.turns.messages(ns, "s1") == []

"""Every fenced code block of README.md and docs/*.md runs (or is checked) as written.

Blocks are collected generically (tests/integration/docs/doc_blocks.py), so a section added to
any doc is picked up without a change here. What happens to a block depends on its language:

- ``python``: executed as a user's script (in this interpreter: :func:`doc_blocks.run_python`) against
  the real stack (the test Neo4j, an embedded Chroma, the real model), in a scratch namespace
  (``KGMEM_NAMESPACE``), with a scratch ``KGMEM_HOME`` and working directory for the files it writes;
  the namespaces it names (``ns="..."``) are deleted afterwards. Blocks another test runs with
  assertions on their results (the README's Usage examples, the analyst's batch job) run there only.
- ``toml``: loaded through kgmem's real settings (``KGMEM_CONFIG`` + :func:`kgmem.config.load_settings`),
  so a wrong key or value fails.
- ``json``: parsed; an MCP client configuration (``mcpServers``) must have the shape MCP clients
  read (``command`` string, ``args`` list of strings) and its kgmem arguments must resolve.
- ``sh`` / ``bash`` / ``console`` (and untagged blocks whose every line is a command): each line.
  ``kgmem ...`` lines are resolved through the real click command tree (an unknown command, option
  or choice fails) and, where safe, run in-process against the test Neo4j in the scratch namespace
  and directory; not run: ``up`` / ``down`` / ``demo`` / ``mcp`` (they manage servers: the operations
  guide's server blocks run in test_operations_guide.py), lines
  with placeholders or ``[optional]`` parts (synopses), lines naming a user's file that does not
  exist, remote URIs. ``python scripts/X.py ...`` and ``python -m benchmarks.X ...`` lines are parsed
  by the script's own argparse parser (the script body is not run); ``python -m benchmarks ...``
  lines are resolved through the benchmark runner's click commands; pytest and ``scripts/test.sh``
  lines must name existing test paths; ``scripts/*.sh`` must exist and be executable; any other
  program must be installed.
- ``cypher``: every line (comments and ``...`` aside) must be in a shipped ``cypher/`` file (the
  files themselves are run by the integration tests), so the docs cannot drift from the queries; a
  report contract header (``// name: ...``) is parsed by ``kgmem report``'s own parser instead.
- Skipped by language: ``mermaid`` diagrams and ``text`` (untagged blocks that are not commands:
  diagrams, output samples, file formats).

A block that cannot run as such carries ``<!-- doc-test: skip (REASON) -->`` just before its fence;
those are counted (:func:`test_skip_markers_are_few`).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import runpy
import shutil
import sys
import tomllib
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from kgmem.config import Settings
from kgmem.maintenance import delete_namespace

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "client"))
from doc_blocks import ROOT, SHELL, Block, Command, collect, commands, run_python  # noqa: E402
from test_readme_example import usage_blocks  # noqa: E402

BLOCKS = collect()
SKIPPED_LANGS = frozenset({"mermaid", "text"})
#: kgmem commands that start, stop or serve a server: resolved, never run by this test
NOT_RUN = frozenset({"up", "down", "demo", "mcp"})
MAX_MARKED_SKIPS = 3


def _ids(blocks: list[Block]) -> list[str]:
    return [b.id for b in blocks]


def _of(*langs: str) -> list[Block]:
    return [b for b in BLOCKS if b.lang in langs]


@pytest.fixture
def scratch(
    settings: Settings, base_settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> dict[str, str]:
    """A user's environment pointing at the test Neo4j: scratch namespace, KGMEM_HOME and working
    directory (the ONNX export of the model is shared, not redone). Returns the environment."""
    home = tmp_path / "home"
    home.mkdir()
    if base_settings.models_dir.is_dir():
        (home / "models").symlink_to(base_settings.models_dir, target_is_directory=True)
    work = tmp_path / "work"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("KGMEM_") and k != "ANTHROPIC_API_KEY"}
    cfg = base_settings.neo4j
    env.update(
        PYTHONPATH=str(ROOT),
        KGMEM_HOME=str(home),
        KGMEM_NAMESPACE=settings.namespace,
        KGMEM_NEO4J__URI=cfg.uri,
        KGMEM_NEO4J__USER=cfg.user,
        KGMEM_NEO4J__PASSWORD=cfg.password.get_secret_value() if cfg.password else "",
        KGMEM_NEO4J__BOLT_PORT=str(cfg.bolt_port),
        KGMEM_NEO4J__HTTP_PORT=str(cfg.http_port),
    )
    monkeypatch.chdir(work)
    return env


def _delete_named_namespaces(graph, code: str, own: str) -> None:  # type: ignore[no-untyped-def]
    for name in set(re.findall(r"""\bns\s*=\s*["']([\w.-]+)["']|--ns[ =]([\w.-]+)""", code)):
        ns = next(n for n in name if n)
        if ns != own:
            delete_namespace(graph, None, ns)


# -- python ----------------------------------------------------------------------------------
def _run_with_assertions() -> dict[str, str]:
    """Blocks a test of their own runs as written and checks the results of: code → that test. Each runs
    there, once, instead of here too."""
    out = {code.strip(): "tests/integration/client/test_readme_example.py" for code in usage_blocks()}
    for path in sorted({b.path for b in BLOCKS}):  # the analysts' batch job, wherever the docs keep it
        text = path.read_text(encoding="utf-8")
        for code in re.findall(r"<!-- example: neomodel-batch-job -->\s*```python\n(.*?)```", text, re.S):
            out[code.strip()] = "tests/integration/graph/test_models.py"
    return out


@pytest.mark.parametrize("block", _of("python", "py"), ids=_ids(_of("python", "py")))
def test_python_block_runs(block: Block, scratch: dict[str, str], graph, ns: str, capfd) -> None:  # noqa: ANN001
    if block.skip:
        pytest.skip(block.skip)
    elsewhere = _run_with_assertions().get(block.code.strip())
    if elsewhere:
        pytest.skip(f"runs once, with assertions on its results: {elsewhere}")
    try:
        run_python(block.code, block.id, scratch)
    finally:
        _delete_named_namespaces(graph, block.code, ns)
    err = capfd.readouterr().err
    assert "Traceback" not in err, f"{block.id} logged an exception:\n{err[-4000:]}"


# -- toml ------------------------------------------------------------------------------------
@pytest.mark.parametrize("block", _of("toml"), ids=_ids(_of("toml")))
def test_toml_block_is_valid_settings(block: Block, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kgmem.config import load_settings

    if block.skip:
        pytest.skip(block.skip)
    path = tmp_path / "kgmem.toml"
    path.write_text(block.code, encoding="utf-8")
    for key in [k for k in os.environ if k.startswith("KGMEM_")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("KGMEM_CONFIG", str(path))
    monkeypatch.setenv("KGMEM_HOME", str(tmp_path / "home"))
    settings = load_settings()  # a ConfigError names a wrong key or value
    for section, values in tomllib.loads(block.code).items():
        if not isinstance(values, dict):
            assert getattr(settings, section) == values, f"{block.id}: {section}"
            continue
        for key, value in values.items():
            got = getattr(getattr(settings, section), key)
            got = got.get_secret_value() if hasattr(got, "get_secret_value") else got
            assert got == value or str(got) == str(value), (
                f"{block.id}: [{section}] {key} = {got!r}, doc says {value!r}"
            )


# -- json ------------------------------------------------------------------------------------
@pytest.mark.parametrize("block", _of("json"), ids=_ids(_of("json")))
def test_json_block_parses(block: Block) -> None:
    if block.skip:
        pytest.skip(block.skip)
    doc = json.loads(block.code)
    servers = doc.get("mcpServers") if isinstance(doc, dict) else None
    if servers is None:
        return
    assert isinstance(servers, dict) and servers, f"{block.id}: mcpServers must map names to servers"
    for name, server in servers.items():
        assert isinstance(server.get("command"), str), f"{block.id}: {name}.command must be a string"
        args = server.get("args", [])
        assert isinstance(args, list) and all(isinstance(a, str) for a in args), f"{block.id}: {name}.args"
        if Path(server["command"]).name == "kgmem":
            _resolve_kgmem(args)


# -- cypher ----------------------------------------------------------------------------------
def _shipped_lines() -> str:
    return "\n".join(
        ln.strip() for p in (ROOT / "cypher").rglob("*.cypher") for ln in p.read_text(encoding="utf-8").splitlines()
    )


@pytest.mark.parametrize("block", _of("cypher"), ids=_ids(_of("cypher")))
def test_cypher_block_is_shipped_cypher(block: Block) -> None:
    from kgmem.reports.spec import parse_header

    if block.skip:
        pytest.skip(block.skip)
    if block.code.startswith("// name:"):  # a report's contract header: parsed by `kgmem report`'s parser
        spec = parse_header(block.code, "doc")
        assert spec.name and spec.columns, f"{block.id}: no name or columns"
        return
    shipped = _shipped_lines()
    # an excerpt may be abridged ("..."), and its comments are the doc's own
    lines = [re.sub(r",?\s*(\.\.\.|…)$", "", ln.strip()) for ln in block.code.splitlines()]
    missing = [ln for ln in lines if ln and not ln.startswith("//") and ln not in ("...", "…") and ln not in shipped]
    assert not missing, f"{block.id}: lines that are in no file of cypher/: {missing}"


# -- shell -----------------------------------------------------------------------------------
SHELL_BLOCKS = [b for b in BLOCKS if b.lang in SHELL]


@pytest.mark.parametrize("block", SHELL_BLOCKS, ids=_ids(SHELL_BLOCKS))
def test_shell_block_commands(block: Block, scratch: dict[str, str], graph, ns: str) -> None:
    if block.skip:
        pytest.skip(block.skip)
    cmds = commands(block.code)
    assert cmds, f"{block.id}: no command found"
    try:
        for cmd in cmds:
            _check_command(cmd, scratch)
    finally:
        _delete_named_namespaces(graph, block.code, ns)


def _check_command(cmd: Command, env: dict[str, str]) -> None:
    program, args = cmd.argv[0], cmd.argv[1:]
    name = Path(program).name
    if name == "kgmem":
        _kgmem(cmd, args, env)
    elif name.startswith("python"):
        if args[:2] == ["-m", "pytest"]:
            _test_paths(args[2:], cmd)
        elif args[:2] == ["-m", "kgmem.cli"]:
            _kgmem(cmd, args[2:], env)
        elif args[:2] == ["-m", "benchmarks"]:
            _resolve_benchmarks(args[2:], cmd)
        elif args[:1] == ["-m"] and len(args) > 1 and args[1].startswith("benchmarks."):
            _parse_script_args(ROOT / (args[1].replace(".", "/") + ".py"), args[2:], cmd)
        else:
            assert args and args[0].endswith(".py"), f"{cmd.line!r}: which script?"
            _parse_script_args(ROOT / args[0], args[1:], cmd)
    elif name == "pytest":
        _test_paths(args, cmd)
    elif program.startswith("scripts/"):
        script = ROOT / program
        assert script.is_file() and os.access(script, os.X_OK), f"{cmd.line!r}: {program} is not an executable script"
        if name == "test.sh":
            _test_paths([a for a in args if a != "--unit"], cmd)
    else:
        venv_bin = Path(sys.executable).parent
        assert shutil.which(name, path=f"{venv_bin}{os.pathsep}{os.environ.get('PATH', '')}"), (
            f"{cmd.line!r}: {name} is not installed"
        )


def _test_paths(args: list[str], cmd: Command) -> None:
    paths = [a for a in args if not a.startswith("-") and ("/" in a or a.endswith(".py"))]
    for path in paths:
        assert (ROOT / path.split("::")[0]).exists(), f"{cmd.line!r}: {path} does not exist"


class _Parsed(Exception):
    """Raised instead of running a script once its arguments parsed."""


def _parse_script_args(script: Path, args: list[str], cmd: Command) -> None:
    """Parse ``args`` with the script's own argparse parser (its body is not run)."""
    assert script.is_file(), f"{cmd.line!r}: {script.relative_to(ROOT)} does not exist"
    original = argparse.ArgumentParser.parse_args

    def parse_then_stop(self, args=None, namespace=None):  # type: ignore[no-untyped-def]
        original(self, args, namespace)
        raise _Parsed

    argv = sys.argv
    sys.argv = [str(script), *args]
    argparse.ArgumentParser.parse_args = parse_then_stop  # type: ignore[method-assign]
    try:
        runpy.run_path(str(script), run_name="__main__")
    except _Parsed:
        return
    except SystemExit as exc:
        raise AssertionError(f"{cmd.line!r}: {script.name} rejected its arguments (exit {exc.code})") from None
    finally:
        argparse.ArgumentParser.parse_args = original  # type: ignore[method-assign]
        sys.argv = argv
    raise AssertionError(f"{cmd.line!r}: {script.name} parsed no arguments")


def _resolve_benchmarks(args: list[str], cmd: Command) -> None:
    """``python -m benchmarks ...``: resolved through the runner's own click tree (never run here: a
    benchmark takes minutes to hours)."""
    from benchmarks.__main__ import cli

    try:
        _resolve_kgmem(args, cli)
    except click.ClickException as exc:
        raise AssertionError(f"{cmd.line!r}: {exc.format_message()}") from None


def _resolve_kgmem(args: list[str], main: click.Command | None = None) -> tuple[list[str], bool]:
    """Walk ``args`` down the real click tree (kgmem's, or ``main``; unknown commands, options, choices and
    values fail). Returns the command path and whether a file argument names a file that does not exist here."""
    if main is None:
        from kgmem.cli import main

    path: list[str] = []
    missing_file = False
    ctx = main.make_context(main.name or "kgmem", list(args))
    command: click.Command = main
    while isinstance(command, click.Group):
        rest = [*ctx.protected_args, *ctx.args] if hasattr(ctx, "protected_args") else list(ctx.args)
        if not rest:
            break
        name, sub, rest = command.resolve_command(ctx, rest)
        assert sub is not None and name is not None
        path.append(name)
        try:
            ctx = sub.make_context(name, rest, parent=ctx)
        except click.BadParameter as exc:
            if isinstance(getattr(exc.param, "type", None), click.Path) and "does not exist" in exc.format_message():
                missing_file = True  # a user's file: the command and its options resolved up to here
                break
            raise
        command = sub
    return path, missing_file


def _kgmem(cmd: Command, args: list[str], env: dict[str, str]) -> None:
    try:
        path, missing_file = _resolve_kgmem(args)
    except click.ClickException as exc:
        raise AssertionError(f"{cmd.line!r}: {exc.format_message()}") from None
    if cmd.synopsis or missing_file or not path or path[0] in NOT_RUN or re.search(r"://(?!127\.0\.0\.1)", cmd.line):
        return  # resolved only (see the module docstring)
    from kgmem.cli import main

    result = CliRunner().invoke(main, args, env=env, catch_exceptions=True)
    assert result.exit_code == 0, (
        f"{cmd.line!r} exited {result.exit_code}:\n{result.output[-3000:]}\n{result.exception!r}"
    )


# -- the inventory ---------------------------------------------------------------------------
def test_skip_markers_are_few() -> None:
    """Blocks marked ``doc-test: skip`` are counted, and each gives a reason."""
    marked = [b for b in BLOCKS if b.skip]
    assert all(b.skip.strip() for b in marked)
    assert len(marked) <= MAX_MARKED_SKIPS, [f"{b.id}: {b.skip}" for b in marked]


def test_every_block_has_a_check() -> None:
    """No block falls through: each language is run, checked, or skipped on purpose."""
    checked = {"python", "py", "toml", "json", "cypher"} | SHELL | SKIPPED_LANGS
    unknown = [b.id for b in BLOCKS if b.lang not in checked]
    assert not unknown, f"blocks in a language this test does not handle: {unknown}"
    counts: dict[str, int] = {}
    for b in BLOCKS:
        counts[b.lang] = counts.get(b.lang, 0) + 1
    print(f"\ndoc blocks: {len(BLOCKS)} ({counts}); marked skip: {sum(1 for b in BLOCKS if b.skip)}")


def test_shell_lines_become_argv_and_synopses_are_recognised() -> None:
    """The line parser itself (pure): env assignments, redirections, comments, [optional] parts,
    a|b choices, placeholders and repeat marks."""
    from doc_blocks import language

    (report,) = commands("kgmem report unresolved_errors -p threshold=0.8 -f csv > unresolved.csv   # batch\n")
    assert report.argv == ["kgmem", "report", "unresolved_errors", "-p", "threshold=0.8", "-f", "csv"]
    assert not report.synopsis
    (fb,) = commands("kgmem feedback QUERY_ID --used HIT_ID [--used ...] --outcome success [--response TEXT]\n")
    assert fb.synopsis and fb.argv == [
        "kgmem",
        "feedback",
        "1",
        "--used",
        "1",
        "--outcome",
        "success",
        "--response",
        "1",
    ]
    (env,) = commands('[KGMEM_EMBEDDING__MODEL=minilm-int8] .venv/bin/python scripts/x.py --presets "" \\\n  --k 3\n')
    assert env.argv == [".venv/bin/python", "scripts/x.py", "--presets", "", "--k", "3"]
    (choice,) = commands("$ kgmem search q [--preset fast|balanced|deep]\n")
    assert choice.synopsis and choice.argv == ["kgmem", "search", "q", "--preset", "fast"]
    assert language("", "kgmem up\n.venv/bin/pytest tests/unit\n") == "sh"
    assert language("", "agent ──► kgmem\n") == "text"
    assert language("TOML title", "") == "toml"

"""Collect the fenced code blocks of README.md and docs/*.md and turn shell lines into argv.

Used by tests/integration/docs/test_doc_blocks.py (which says what is done with each language).
Blocks are found with markdown-it-py (the CommonMark parser ``rich`` already installs), so
indented fences inside list items count too. A block whose fence is preceded by the marker
``<!-- doc-test: skip (REASON) -->`` is skipped with that reason.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parents[3]
SKIP_MARKER = re.compile(r"<!--\s*doc-test:\s*skip\s*\((?P<reason>[^)]+)\)\s*-->")

#: languages of blocks that are commands (an untagged block is sniffed: see :func:`language`)
SHELL = frozenset({"sh", "bash", "shell", "console", "zsh"})
#: what a command line starts with, in an untagged block (otherwise the block is plain text)
_COMMAND_START = re.compile(
    r"^(\$ |\[?[A-Z_]+=\S*\]? |\.venv/bin/|scripts/|kgmem\b|PYTHONPATH=|python|pytest|chroma\b)"
)
#: tokens ending a command's argv for resolution (redirections, pipes, chaining)
_STOP = frozenset({">", ">>", "|", "&&", "||", ";", "2>&1", "&"})


@dataclass(frozen=True)
class Block:
    """One fenced block: where it is, its (effective) language, its text, a skip reason if marked."""

    path: Path
    line: int  # 1-based line of the opening fence
    lang: str
    code: str
    skip: str | None = None

    @property
    def id(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}:{self.lang or 'text'}"


def doc_files(root: Path = ROOT) -> list[Path]:
    """README.md and every docs/*.md (new docs are picked up without a change here)."""
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]


def language(info: str, code: str) -> str:
    """The block's language: its tag's first word, lower-cased; an untagged block whose every
    line (continuations and comments aside) looks like a command counts as ``sh``, any other
    untagged block as ``text`` (a diagram or an output sample)."""
    tag = info.strip().split(maxsplit=1)[0].lower() if info.strip() else ""
    if tag:
        return tag
    lines = [ln for ln in _logical_lines(code) if ln and not ln.startswith("#")]
    return "sh" if lines and all(_COMMAND_START.match(ln) for ln in lines) else "text"


def collect(files: list[Path] | None = None) -> list[Block]:
    """Every fenced block of ``files`` (default: :func:`doc_files`), in order."""
    md = MarkdownIt("commonmark")
    blocks: list[Block] = []
    for path in files or doc_files():
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        for tok in md.parse(text):
            if tok.type != "fence" or tok.map is None:
                continue
            start = tok.map[0]
            blocks.append(
                Block(path, start + 1, language(tok.info, tok.content), tok.content, _skip_reason(lines, start))
            )
    return blocks


def _skip_reason(lines: list[str], fence: int) -> str | None:
    i = fence - 1
    while i >= 0 and not lines[i].strip():
        i -= 1
    match = SKIP_MARKER.search(lines[i]) if i >= 0 else None
    return match["reason"].strip() if match else None


def _logical_lines(code: str) -> list[str]:
    """Lines with ``\\`` continuations joined and a console prompt (``$ ``) removed."""
    out: list[str] = []
    buf = ""
    for raw in code.splitlines():
        line = raw.rstrip()
        if line.endswith("\\"):
            buf += line[:-1] + " "
            continue
        out.append((buf + line).strip())
        buf = ""
    if buf:
        out.append(buf.strip())
    return [ln[2:] if ln.startswith("$ ") else ln for ln in out]


@dataclass(frozen=True)
class Command:
    """One command of a shell block: its argv (env assignments and redirections removed), whether it
    is a synopsis (placeholders, ``[optional]`` parts, ``a|b`` choices: it can only be resolved),
    and the raw line."""

    argv: list[str]
    synopsis: bool
    line: str


_PLACEHOLDER = re.compile(r"^(<[^>]+>|[A-Z][A-Z0-9_]*(\.[a-z]+)?|\.\.\.|…)$")


def commands(code: str) -> list[Command]:
    """The commands of a shell block, one per logical line (blank and comment lines skipped)."""
    out = []
    for line in _logical_lines(code):
        # "[--used ...]": the option may be repeated — one occurrence is already there
        tokens = shlex.split(re.sub(r"\[[^\[\]]*(\.\.\.|…)\s*\]", " ", line), comments=True)
        argv: list[str] = []
        synopsis = False
        for raw in tokens:
            if raw in _STOP:
                break
            tok = raw.strip("[]")
            synopsis |= tok != raw
            if not tok and raw:
                continue  # a lone "[" or "]"
            if not argv and re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", tok):
                continue  # an environment assignment before the command
            if "|" in tok and not tok.startswith("-"):
                synopsis = True
                tok = tok.split("|")[0]  # the first of the choices
            if argv and _PLACEHOLDER.match(tok):
                synopsis = True
                tok = "1"  # fits a str, int or float option; a choice is written a|b, not as a placeholder
            argv.append(tok)
        if argv:
            out.append(Command(argv, synopsis, line))
    return out


def run_python(code: str, name: str, env: dict[str, str]) -> None:
    """Run ``code`` as a user's script (``__main__``) in this interpreter, with ``env`` as the whole
    environment while it runs (restored afterwards). In-process, not a fresh interpreter: the code and
    the stack it reaches are the point, and a new interpreter importing torch and loading the model
    costs 10-100 s a block on a loaded machine. Raises whatever the code raises; the caller reads
    what it printed with ``capfd``."""
    import os

    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        exec(compile(code, name, "exec"), {"__name__": "__main__"})  # noqa: S102 - the docs' own examples
    finally:
        os.environ.clear()
        os.environ.update(saved)

"""The Neo4j Browser guide (``:play`` slides) generated from the report library and the
exploration starters in ``cypher/browser/starters/`` — so the guide always holds exactly
the reports `kgmem report` runs.

Format: Neo4j Browser's remote-guide HTML (``<slide>`` elements; ``<pre class="runnable">``
blocks go into the editor on click). Browser strips scripts from remote guides, so there is none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html import escape

from kgmem import cypher
from kgmem.reports.library import list_reports
from kgmem.reports.spec import ReportSpec

STARTERS = "browser/starters"
DEFAULT_NS = "default"


@dataclass(frozen=True)
class Starter:
    """An exploration query: a title, what it shows, and its Cypher (uses ``$ns``)."""

    name: str
    title: str
    description: str
    query: str


def strip_header(text: str) -> str:
    """The query without its leading ``//`` comment block."""
    lines = text.splitlines()
    while lines and (not lines[0].strip() or lines[0].strip().startswith("//")):
        lines.pop(0)
    return "\n".join(lines).strip()


def load_starters() -> list[Starter]:
    out = []
    for name in cypher.names(STARTERS):
        text = cypher.load(name)
        title = re.search(r"^//\s*name:\s*(.+)$", text, re.M)
        desc = re.search(r"^//\s*description:\s*(.+)$", text, re.M)
        out.append(
            Starter(
                name=name.rsplit("/", 1)[1],
                title=title[1].strip() if title else name,
                description=desc[1].strip() if desc else "",
                query=strip_header(text),
            )
        )
    return out


def params_command(spec: ReportSpec, ns: str = DEFAULT_NS) -> str:
    """A ``:params`` command setting the report's parameters to their defaults."""
    parts = []
    for p in spec.params:
        value = ns if p.name == "ns" else p.default
        parts.append(f"{p.name}: {_cypher_literal(value)}")
    return ":params {" + ", ".join(parts) + "}"


def _cypher_literal(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if value is None:
        return "null"
    return "'" + str(value).replace("\\", "\\\\").replace("'", "\\'") + "'"


def _runnable(code: str) -> str:
    return f'<pre class="pre-scrollable code runnable">{escape(code)}</pre>'


def _slide(title: str, body: str) -> str:
    return f'<slide class="row-fluid"><div class="col-sm-12"><h3>{escape(title)}</h3>{body}</div></slide>'


def render_guide(ns: str = DEFAULT_NS) -> str:
    """The whole guide as HTML."""
    reports = list_reports()
    starters = load_starters()
    toc_reports = "".join(f"<li><b>{escape(r.name)}</b> — {escape(r.description)}</li>" for r in reports)
    toc_starters = "".join(f"<li><b>{escape(s.title)}</b> — {escape(s.description)}</li>" for s in starters)
    slides = [
        _slide(
            "kgmem — analyst guide",
            '<p class="lead">What your agents learned, as a graph: errors and fixes, knowledge and '
            "contradictions, conversations, the concepts they mention, the call graph. "
            "Click a grey block to put it in the editor, then run it (Ctrl+Enter).</p>"
            "<p>Every query is scoped to a namespace. Set it first (the list of namespaces is the "
            "<i>Namespaces</i> starter); <code>q</code> is the full-text search's words and "
            "<code>concept</code> the subject of <i>What do we know about X</i> (a name or key, any case):</p>"
            + _runnable(f":params {{ns: {_cypher_literal(ns)}, q: 'timeout', concept: 'timeout'}}")
            + f"<p>Exploration starters ({len(starters)}) draw the graph with kgmem's style "
            "(captions per label, concepts by name; edges show <code>predicate</code>, <code>confidence</code>, "
            "<code>score</code>):</p>"
            f"<ul>{toc_starters}</ul>",
        ),
        _slide(
            "Reports",
            f"<p>{len(reports)} reports, the same Cypher as <code>kgmem report NAME</code> "
            "(which adds CSV, JSON and HTML pages with charts):</p>"
            f"<ul>{toc_reports}</ul>"
            "<p>Style missing? Run <code>:style</code> followed by the style URL from the "
            "<code>:style</code> frame, or <code>:style reset</code> for Browser's default.</p>",
        ),
    ]
    for s in starters:
        slides.append(_slide(s.title, f"<p>{escape(s.description)}</p>" + _runnable(s.query)))
    for r in reports:
        params = "".join(
            f"<li><code>{escape(p.name)}</code> ({p.type}{'' if p.required else f', default {escape(str(p.default))}'})"
            f" — {escape(p.description)}</li>"
            for p in r.params
        )
        columns = ", ".join(f"<code>{escape(c.name)}</code>" for c in r.columns)
        slides.append(
            _slide(
                f"Report: {r.name}",
                f"<p>{escape(r.description)}</p><p>Parameters:</p><ul>{params}</ul>"
                + _runnable(params_command(r, ns))
                + _runnable(strip_header(r.query))
                + f"<p>Columns: {columns}. From a shell: <code>kgmem report {escape(r.name)} --format html</code>.</p>",
            )
        )
    return (
        '<style type="text/css" media="screen">.kgmem-guide pre.runnable { white-space: pre-wrap; }</style>\n'
        '<article class="guide kgmem-guide"><carousel class="deck container-fluid">\n'
        + "\n".join(slides)
        + "\n</carousel></article>\n"
    )

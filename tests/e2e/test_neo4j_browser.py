"""Neo4j Browser for analysts: the running server serves kgmem's style and guide, and a Browser
session (headless Chromium) gets both on connect, then draws a starter query in kgmem's colours.

Runs against the server the tests use (settings: neo4j.uri / neo4j.http_port), which `kgmem up`
starts with the assets installed (kgmem.reports.browser.install_browser_assets).
"""

from __future__ import annotations

import json
import os
import shutil
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

import pytest
from headless import DevTools, chromium_or_skip, coloured_pixels  # type: ignore[import-not-found]

from kgmem.reports import load_report
from kgmem.reports.browser import PREFIX, asset_urls, assets, find_browser_jar, jar_has_assets
from kgmem.reports.guide import load_starters, params_command, strip_header

DOCS = Path(__file__).resolve().parents[2] / "docs" / "images"
ERROR_PATTERN_COLOUR = (0xF1, 0x66, 0x67)  # node.ErrorPattern in cypher/browser/style.grass
CONCEPT_FILL = "#F79767"  # node.Concept in cypher/browser/style.grass
# Scroll every scrolled element back to the top, where Browser puts the newest frame. On a loaded machine
# the stream is sometimes left scrolled with the newest frame above the viewport, out of a screenshot;
# an analyst would scroll up.
_TO_TOP = "document.querySelectorAll('*').forEach(e => { if (e.scrollTop > 0) e.scrollTop = 0; })"

_FILL_FORM = """
(() => {
  const set = (sel, v) => { const el = document.querySelector(sel); if (!el) return false;
    Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set.call(el, v);
    el.dispatchEvent(new Event('input', {bubbles: true})); return true; };
  return set('[data-testid=boltaddress]', %s) && set('[data-testid=username]', %s)
      && set('[data-testid=password]', %s);
})()
"""


def _get(url: str) -> bytes:
    try:
        with urllib.request.urlopen(url, timeout=10) as resp:
            return resp.read()
    except urllib.error.HTTPError as exc:
        pytest.fail(f"{url}: HTTP {exc.code} — is the server started by `kgmem up` with the Browser assets?")
    except OSError as exc:
        pytest.fail(f"{url}: server not reachable ({exc})")


def test_server_serves_the_style_and_guide(base_settings) -> None:
    urls = asset_urls(base_settings.neo4j.http_port)
    assert _get(urls["style"]) == assets()[PREFIX + "style.grass"]
    guide = _get(urls["guide"])
    current = {assets(ns)[PREFIX + "guide.html"] for ns in ("default", base_settings.namespace)}
    assert guide in current, "the server serves an older guide: restart it (kgmem down; kgmem up)"


def _browser_jar(neo4j_home: Path) -> Path:
    jar = find_browser_jar(neo4j_home / "lib")
    assert jar is not None, f"no neo4j-browser jar under {neo4j_home}/lib"
    return jar


def test_a_second_server_on_the_same_jars_keeps_the_first_servers_guide(base_settings, private_neo4j) -> None:
    # The private test server links this home's jars and `kgmem up` writes the guide of its own
    # namespace into the Browser jar: that write must land in its home only.
    private = private_neo4j("browser_guide", namespace="private")
    assert jar_has_assets(_browser_jar(private.server_settings.neo4j_home), assets("private"))
    jar = _browser_jar(base_settings.neo4j_home)
    assert any(jar_has_assets(jar, assets(ns)) for ns in ("default", base_settings.namespace))


def test_browser_applies_style_opens_guide_and_draws_a_starter(base_settings, analyst, tmp_path: Path) -> None:
    chromium_or_skip()
    mem, _ = analyst
    cfg = base_settings.neo4j
    bolt = urlparse(cfg.uri)
    starter = next(s for s in load_starters() if s.name == "errors_and_fixes")
    page = DevTools(width=1400, height=1000)
    try:
        page.call("Page.enable")
        page.call("Page.navigate", url=f"http://127.0.0.1:{cfg.http_port}/browser/")
        page.wait_for("!!document.querySelector('[data-testid=connect]')")
        password = cfg.password.get_secret_value() if cfg.password else ""
        assert page.eval(
            _FILL_FORM % (json.dumps(f"bolt://{bolt.hostname}:{bolt.port}"), json.dumps(cfg.user), json.dumps(password))
        )
        page.eval("document.querySelector('[data-testid=connect]').click()")
        # post-connect commands: the guide frame and the style frame
        page.wait_for("document.body.innerText.includes('kgmem — analyst guide')")
        page.wait_for("document.body.innerText.includes('node.ErrorPattern')")  # the :style frame shows kgmem's grass
        # run a starter for the fixture namespace, as an analyst would
        page.eval("document.querySelector('[data-testid=activeEditor]').click()")
        page.type_text(f":param ns => '{mem.namespace}'")
        page.eval("document.querySelector('[data-testid=editor-Run]').click()")
        page.wait_for(f"document.body.innerText.includes('{mem.namespace}')")
        page.eval("document.querySelector('[data-testid=activeEditor]').click()")
        page.type_text(" ".join(starter.query.split()))
        page.eval("document.querySelector('[data-testid=editor-Run]').click()")
        nodes = page.wait_for(f"({_TO_TOP}, document.querySelectorAll('svg g.node').length)", timeout=60)
        assert nodes >= 6  # 3 tools + 3 error patterns with fixes + 2 fixes in the fixture
        fills = page.wait_for(
            "(() => { const f = Array.from(document.querySelectorAll('svg g.node circle'))"
            ".map(c => (c.getAttribute('fill') || '').toUpperCase()); return f.includes('#F16667') && f; })()",
            timeout=30,
        )
        assert "#57C7E3" in fills  # Fix colour: the style is applied, not Browser's defaults
        captions = page.eval("Array.from(document.querySelectorAll('svg g.relationship text')).map(t => t.textContent)")
        assert any(c.startswith("0.") for c in captions)  # RESOLVED_BY shows its confidence
        page.eval("document.querySelector('[data-testid=activeEditor]').blur()")
        page.eval(_TO_TOP)
        png = page.screenshot(tmp_path / "browser.png")
        # a report exactly as its guide slide gives it: the :params block, then the query
        spec = load_report("top_errors")
        for command in (params_command(spec, mem.namespace), " ".join(strip_header(spec.query).split())):
            page.eval("document.querySelector('[data-testid=activeEditor]').click()")
            page.type_text(command)
            page.eval("document.querySelector('[data-testid=editor-Run]').click()")
        table = page.wait_for(
            "(() => { const t = document.querySelector('[data-testid=frameContents]').innerText;"
            " return (t.includes('falling') || t.includes('Error')) && t; })()",
            timeout=60,
        )
        assert "falling" in table and "Error" not in table
    finally:
        page.close()
    assert coloured_pixels(png, (60, 0, 1400, 1000), ERROR_PATTERN_COLOUR, tol=12) > 200
    if os.environ.get("KGMEM_DOCS_SCREENSHOTS"):
        DOCS.mkdir(parents=True, exist_ok=True)
        shutil.copy(png, DOCS / "neo4j_browser.png")


def _login(page: DevTools, cfg) -> None:  # type: ignore[no-untyped-def]
    bolt = urlparse(cfg.uri)
    page.call("Page.enable")
    page.call("Page.navigate", url=f"http://127.0.0.1:{cfg.http_port}/browser/")
    page.wait_for("!!document.querySelector('[data-testid=connect]')")
    password = cfg.password.get_secret_value() if cfg.password else ""
    assert page.eval(
        _FILL_FORM % (json.dumps(f"bolt://{bolt.hostname}:{bolt.port}"), json.dumps(cfg.user), json.dumps(password))
    )
    page.eval("document.querySelector('[data-testid=connect]').click()")
    page.wait_for("document.body.innerText.includes('node.ErrorPattern')")  # kgmem's style frame


def _run(page: DevTools, command: str) -> None:
    page.eval("document.querySelector('[data-testid=activeEditor]').click()")
    page.type_text(command)
    page.eval("document.querySelector('[data-testid=editor-Run]').click()")


def test_what_do_we_know_about_x_draws_a_concept_and_its_memories(base_settings, concepts, tmp_path: Path) -> None:
    """The concept starter as the guide gives it: `:param concept`, then the query; concept nodes in
    kgmem's concept colour with the memories that mention them."""
    chromium_or_skip()
    starter = next(s for s in load_starters() if s.name == "concept")
    page = DevTools(width=1400, height=1000)
    try:
        _login(page, base_settings.neo4j)
        _run(page, f":param ns => '{concepts.ns}'")
        page.wait_for(f"document.body.innerText.includes('{concepts.ns}')")
        _run(page, ":param concept => 'MELANIE'")
        page.wait_for("document.body.innerText.includes('MELANIE')")
        _run(page, " ".join(starter.query.split()))
        # Melanie, the three memories that mention her and the concepts they share
        nodes = page.wait_for(
            "(() => { const n = document.querySelectorAll('svg g.node').length; return n >= 7 && n; })()", timeout=60
        )
        assert nodes >= 7
        fills = page.eval(
            "Array.from(document.querySelectorAll('svg g.node circle'))"
            ".map(c => (c.getAttribute('fill') || '').toUpperCase())"
        )
        assert fills.count(CONCEPT_FILL) >= 4, fills  # Melanie + Caroline, support group, pottery class
        captions = page.eval("Array.from(document.querySelectorAll('svg g.node text')).map(t => t.textContent)")
        assert any("Melanie" in c for c in captions), captions
        page.eval("document.querySelector('[data-testid=activeEditor]').blur()")
        png = page.screenshot(tmp_path / "concept.png")
    finally:
        page.close()
    if os.environ.get("KGMEM_DOCS_SCREENSHOTS"):
        DOCS.mkdir(parents=True, exist_ok=True)
        shutil.copy(png, DOCS / "neo4j_browser_concept.png")

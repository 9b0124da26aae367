"""Browser assets: the guide holds every report and starter; the jar install is idempotent."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

from kgmem.reports import list_reports
from kgmem.reports.browser import PREFIX, assets, install_browser_assets, style_text
from kgmem.reports.guide import load_starters, render_guide


def test_guide_has_one_slide_per_report_and_starter() -> None:
    html = render_guide()
    reports, starters = list_reports(), load_starters()
    assert html.count("<slide") == 2 + len(reports) + len(starters)
    for r in reports:
        assert f"Report: {r.name}" in html
    assert "<script" not in html
    assert len(starters) >= 6


def test_style_captions_cover_every_label_and_the_edge_properties() -> None:
    grass = style_text()
    for label in ("Tool", "Session", "ErrorPattern", "Fix", "Knowledge", "Entity", "Message", "Function", "Concept"):
        assert re.search(rf"node\.{label} \{{[^}}]*caption:", grass), label
    assert re.search(r'node\.Concept \{[^}]*caption: "\{name\}"', grass)
    assert re.search(r"relationship\.MENTIONS \{", grass)
    assert 'caption: "{predicate}"' in grass and 'caption: "{confidence}"' in grass and 'caption: "{score}"' in grass


def _fake_browser_jar(lib: Path) -> Path:
    lib.mkdir(parents=True)
    jar = lib / "neo4j-browser-5.24.0.jar"
    with zipfile.ZipFile(jar, "w") as zf:
        zf.writestr("browser/index.html", "<html></html>")
        zf.writestr(PREFIX + "old.txt", "stale asset from an older kgmem")
    return jar


def test_install_puts_assets_in_the_browser_jar_and_returns_conf_lines(tmp_path: Path) -> None:
    jar = _fake_browser_jar(tmp_path / "lib")
    lines = install_browser_assets(tmp_path, 7575)
    assert lines[0] == (
        "browser.post_connect_cmd=style http://127.0.0.1:7575/browser/kgmem/style.grass; "
        "play http://127.0.0.1:7575/browser/kgmem/guide.html"
    )
    assert lines[1].startswith("browser.remote_content_hostname_whitelist=") and "127.0.0.1" in lines[1]
    with zipfile.ZipFile(jar) as zf:
        names = zf.namelist()
        assert "browser/index.html" in names  # the Browser itself is untouched
        assert PREFIX + "old.txt" not in names  # stale kgmem entries are replaced
        assert zf.read(PREFIX + "style.grass") == assets()[PREFIX + "style.grass"]
        assert len(names) == len(set(names))
    mtime = jar.stat().st_mtime_ns
    install_browser_assets(tmp_path, 7575)
    assert jar.stat().st_mtime_ns == mtime  # unchanged assets: jar not rewritten


def test_no_browser_jar_means_no_conf_lines(tmp_path: Path) -> None:
    (tmp_path / "lib").mkdir()
    assert install_browser_assets(tmp_path, 7474) == []


def test_a_broken_browser_jar_never_blocks_the_server_start(tmp_path: Path, caplog) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "neo4j-browser-5.24.0.jar").write_bytes(b"not a zip")
    assert install_browser_assets(tmp_path, 7474) == []
    assert "could not install the Browser style and guide" in caplog.text


def test_concept_starter_takes_the_concept_as_a_browser_parameter() -> None:
    starter = next(s for s in load_starters() if s.name == "concept")
    assert starter.title == "What do we know about X"
    assert set(re.findall(r"\$([a-z_]+)", starter.query)) == {"ns", "concept"}
    # case-insensitive on both the normalised key and the display name
    assert "toLower(trim($concept))" in starter.query and "toLower(c.name)" in starter.query
    assert "//" not in starter.query  # Browser rejects a guide query with comment lines in it
    html = render_guide("team-a")
    assert ":params {ns: &#x27;team-a&#x27;, q: &#x27;timeout&#x27;, concept: &#x27;timeout&#x27;}" in html

"""Neo4j Browser assets for analysts: kgmem's style (``:style``) and guide (``:play``).

How they reach the Browser: Neo4j serves ``/browser/`` from the ``browser/`` folder of the
neo4j-browser jar, found with one ``ClassLoader.getResource("browser")`` call — so only
*that* jar's folder is served, and a separate jar with ``browser/kgmem/...`` entries is
ignored (checked: 404). kgmem therefore adds its files to the neo4j-browser jar in
``lib/`` (a copy is written and atomically renamed over it; never edited in place, so a
running server keeps its open file), where they appear at ``/browser/kgmem/style.grass``
and ``/browser/kgmem/guide.html``. ``browser.post_connect_cmd`` makes the Browser apply
the style and open the guide on connect; the remote-content allow-list must name the host.
"""

from __future__ import annotations

import logging
import os
import shutil
import zipfile
from pathlib import Path

from kgmem import cypher
from kgmem.reports.guide import DEFAULT_NS, render_guide

log = logging.getLogger(__name__)

PREFIX = "browser/kgmem/"
STYLE = "style.grass"
GUIDE = "guide.html"
ALLOWED_HOSTS = "guides.neo4j.com,localhost,127.0.0.1"


def style_text() -> str:
    """The shipped Browser style (``cypher/browser/style.grass``)."""
    return (cypher.cypher_root() / "browser" / STYLE).read_text(encoding="utf-8")


def assets(namespace: str = DEFAULT_NS) -> dict[str, bytes]:
    """Jar entry name -> content of every kgmem Browser asset (the guide presets ``namespace``)."""
    return {
        PREFIX + STYLE: style_text().encode("utf-8"),
        PREFIX + GUIDE: render_guide(namespace).encode("utf-8"),
    }


def asset_urls(http_port: int, host: str = "127.0.0.1") -> dict[str, str]:
    base = f"http://{host}:{http_port}/{PREFIX}"
    return {"style": base + STYLE, "guide": base + GUIDE}


def conf_lines(http_port: int) -> list[str]:
    """The neo4j.conf lines that hand analysts the style and the guide when they connect."""
    urls = asset_urls(http_port)
    return [
        f"browser.post_connect_cmd=style {urls['style']}; play {urls['guide']}",
        f"browser.remote_content_hostname_whitelist={ALLOWED_HOSTS}",
        # A local analyst tool: Browser sends no product analytics (and shows no consent banner).
        "client.allow_telemetry=false",
    ]


def find_browser_jar(lib: Path) -> Path | None:
    jars = sorted(lib.glob("neo4j-browser-*.jar"))
    return jars[-1] if jars else None


def jar_has_assets(jar: Path, wanted: dict[str, bytes]) -> bool:
    """True when the jar already holds exactly these kgmem entries."""
    with zipfile.ZipFile(jar) as zf:
        present = {n for n in zf.namelist() if n.startswith(PREFIX)}
        if present != set(wanted):
            return False
        return all(zf.read(name) == data for name, data in wanted.items())


def write_assets(jar: Path, wanted: dict[str, bytes]) -> None:
    """Put ``wanted`` into ``jar`` (replacing older kgmem entries) via a copy and an atomic rename."""
    tmp = jar.with_name(jar.name + ".kgmem-tmp")
    with zipfile.ZipFile(jar) as src:
        stale = any(n.startswith(PREFIX) for n in src.namelist())
    if stale:
        # zip cannot delete entries: rebuild without ours (rare — only when the assets changed).
        with zipfile.ZipFile(jar) as src, zipfile.ZipFile(tmp, "w") as dst:
            for info in src.infolist():
                if not info.filename.startswith(PREFIX):
                    dst.writestr(info, src.read(info))
    else:
        shutil.copyfile(jar, tmp)
    with zipfile.ZipFile(tmp, "a", compression=zipfile.ZIP_DEFLATED) as dst:
        for name, data in sorted(wanted.items()):
            dst.writestr(name, data)
    os.replace(tmp, jar)


def install_browser_assets(neo4j_home: Path, http_port: int, namespace: str = DEFAULT_NS) -> list[str]:
    """Install the style and guide into ``neo4j_home/lib`` and return the neo4j.conf lines to add.

    Called by `kgmem up` before the server starts. Idempotent: the jar is rewritten only
    when the assets changed. Without a Browser jar (Browser not installed) it returns no lines.
    ``namespace`` is the one the guide's first slide sets as ``$ns``.
    """
    jar = find_browser_jar(Path(neo4j_home) / "lib")
    if jar is None:
        log.warning("no neo4j-browser jar under %s/lib: Browser style and guide not installed", neo4j_home)
        return []
    wanted = assets(namespace)
    try:
        if not jar_has_assets(jar, wanted):
            write_assets(jar, wanted)
            log.info("Browser style and guide installed into %s", jar.name)
    except (OSError, zipfile.BadZipFile) as exc:
        # The database matters more than the analyst conveniences: start without them.
        log.warning("could not install the Browser style and guide into %s: %s", jar, exc)
        return []
    return conf_lines(http_port)

"""The composition root builds each resource once, lazily, and closes only what it created."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from kgmem.app import Engines
from kgmem.config import ChromaSettings, Settings


def test_engines_build_lazily_once_and_close_only_their_own(settings: Settings, driver, tmp_path: Path) -> None:
    own = Engines(settings.model_copy(update={"chroma": ChromaSettings(path=tmp_path / "c")}))
    assert own._driver is None and own._vectors is None and own._embedder is None  # nothing built yet
    with ThreadPoolExecutor(4) as pool:  # concurrent first use still builds one driver
        graphs = list(pool.map(lambda _: own.graph, range(8)))
    assert all(g is graphs[0] for g in graphs) and own.driver is graphs[0].driver
    assert own.graph.read("learning/error_by_id", ns=settings.namespace, id="0" * 32) == []
    assert own._vectors is None and not own.embedder.loaded  # a graph-only caller opened no Chroma, no model
    own.close()
    assert own._driver is None

    adopted = Engines(settings, driver=driver)
    assert adopted.driver is driver
    adopted.close()
    driver.verify_connectivity()  # the caller's driver is still open

"""The server the suite runs against answers Bolt and serves the Browser."""

import urllib.request

from kgmem.config import Settings


def test_browser_page_is_served(base_settings: Settings) -> None:
    if not base_settings.neo4j.uri.startswith("bolt://127.0.0.1"):
        return  # remote/docker backends: the Browser is not ours to check
    url = f"http://127.0.0.1:{base_settings.neo4j.http_port}/browser/"
    page = urllib.request.urlopen(url, timeout=10).read().decode()
    assert "<title>Neo4j Browser</title>" in page


def test_schema_version_recorded(graph) -> None:
    from kgmem.graph.schema import SCHEMA_VERSION, schema_version

    assert schema_version(graph) == SCHEMA_VERSION

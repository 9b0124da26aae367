"""`kgmem up | down | status`: the local Neo4j server."""

from __future__ import annotations

import json
from typing import Any

import click

from kgmem.config import load_settings


def _settings(bolt_port: int | None, http_port: int | None):  # -> Settings
    base = load_settings()
    neo: dict[str, Any] = {}
    if bolt_port:
        neo.update(bolt_port=bolt_port, uri=f"bolt://127.0.0.1:{bolt_port}")
    if http_port:
        neo["http_port"] = http_port
    if not neo:
        return base
    return load_settings(neo4j={**base.neo4j.model_dump(), **neo})


def _port_options(fn):  # type: ignore[no-untyped-def]
    fn = click.option("--http-port", type=click.IntRange(1, 65535), help="HTTP/Browser port (default 7474).")(fn)
    return click.option("--bolt-port", type=click.IntRange(1, 65535), help="Bolt port (default 7687).")(fn)


@click.command()
@_port_options
def up(bolt_port: int | None, http_port: int | None) -> None:
    """Install (first time) and start the local Neo4j; reuse it if it is running."""
    from kgmem.server import LocalNeo4j

    settings = _settings(bolt_port, http_port)
    click.echo(f"starting Neo4j {settings.neo4j.version} under {settings.neo4j_home} ...", err=True)
    st = LocalNeo4j(settings).up()
    verb = "already running" if st.reused else f"started in {st.start_seconds:.1f} s"
    click.echo(f"Neo4j {st.version} {verb} (pid {st.pid})")
    version = _schema_step(_settings(bolt_port, http_port))  # re-read: `up` may have written the password
    if version is not None:
        click.echo(f"  schema:  version {version}")
    click.echo(f"  bolt:    {st.bolt_uri}")
    click.echo(f"  browser: {st.browser_url}  (user {settings.neo4j.user}, password in {st.config_file})")


def _schema_step(settings) -> int | None:  # type: ignore[no-untyped-def]
    """The clients' first-connect schema step, run once by `kgmem up` so the server it started is ready
    to use (skipped when the settings point at another server or ``[neo4j] auto_schema`` is false)."""
    from kgmem.app import Engines
    from kgmem.server.local import is_local

    if not (settings.neo4j.auto_schema and is_local(settings)):
        return None
    with Engines(settings) as engines:
        engines.connect_graph()
        return engines.schema_version


@click.command()
@_port_options
def down(bolt_port: int | None, http_port: int | None) -> None:
    """Stop the local Neo4j."""
    from kgmem.server import LocalNeo4j

    stopped = LocalNeo4j(_settings(bolt_port, http_port)).down()
    click.echo("Neo4j stopped" if stopped else "Neo4j was not running")


@click.command()
@_port_options
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def status(bolt_port: int | None, http_port: int | None, as_json: bool) -> None:
    """Show version, ports, data dir, pid and Browser URL of the local Neo4j, the spool's counters, and
    the analyzer's LLM with the calls and tokens it has used."""
    from kgmem.llm import llm_status
    from kgmem.server import LocalNeo4j
    from kgmem.spool import Spool

    settings = _settings(bolt_port, http_port)
    st = LocalNeo4j(settings).status()
    spool = Spool(settings.spool_dir).stats()  # files only: answers with Neo4j down too
    llm = llm_status(settings)  # the settings and a file: answers with Neo4j down too
    if as_json:
        out = {**st.as_dict(), "spool": {**spool, "dir": str(settings.spool_dir)}, "llm": llm}
        click.echo(json.dumps(out, indent=2))
        return
    click.echo(f"Neo4j:    {'running' if st.running else 'stopped'}" + (f" (pid {st.pid})" if st.pid else ""))
    click.echo(f"version:  {st.version or 'not installed'}")
    click.echo(f"bolt:     {st.bolt_uri}")
    click.echo(f"browser:  {st.browser_url}")
    click.echo(f"data dir: {st.home}")
    click.echo(f"log:      {st.log_file}")
    click.echo(f"config:   {st.config_file}")
    click.echo(
        f"spool:    {spool['pending']} pending, {spool['dropped']} dropped, {spool['quarantined']} quarantined "
        f"({settings.spool_dir})"
    )
    where = f" at {llm['base_url']}" if llm.get("base_url") else ""
    click.echo(f"llm:      {llm['analyzer']}{where}" + (f" — {llm['error']}" if "error" in llm else ""))
    for entry in llm["usage"].values():
        click.echo(
            f"  {entry.get('provider')}:{entry.get('model')}  {entry.get('calls', 0)} calls, "
            f"{entry.get('failures', 0)} failed, {entry.get('retries', 0)} retries, "
            f"{entry.get('input_tokens', 0)} input / {entry.get('output_tokens', 0)} output tokens"
        )

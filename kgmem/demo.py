"""`kgmem demo`: the whole loop on the local defaults, printed as it happens.

Starts the local Neo4j (unless a remote one is configured), records tool errors and the
fix that resolved them, shows the next occurrence getting the fix back, feeds a short
conversation through the (offline, without a key) analyzer, searches, and prints where
to browse the graph.
"""

from __future__ import annotations

from collections.abc import Callable

from kgmem.config import Settings, load_settings

DEMO_NS = "demo"
Echo = Callable[[str], None]
# Shown to the user for Neo4j Browser; the namespace goes in as a Browser parameter.
_BROWSER_QUERY = "MATCH p = (e:ErrorPattern {ns: $ns})-[:RESOLVED_BY|SIMILAR_TO]-() RETURN p"

_ERRORS = [
    ("deploy-1", 'psql: error: connection to server at "10.0.3.17", port 5432 failed: Connection refused'),
    ("deploy-2", 'psql: error: connection to server at "10.0.9.4", port 6543 failed: Connection refused'),
    ("deploy-3", 'psql: error: connection to server at "172.17.0.2", port 5433 failed: Connection refused'),
]
_FIX = "start the database first: `docker compose up -d db`, wait for it to accept connections, then retry"
_SIMILAR = (
    "deploy-4",
    'psql: error: connection to server on socket "/var/run/postgresql/.s.PGSQL.5432" failed: Connection refused',
)
_CONVERSATION = [
    ("user", "Our staging database is Postgres 16 and it runs in docker compose."),
    ("assistant", "Understood, I will target Postgres 16 in staging."),
    ("user", "I prefer migrations to run with alembic, never with raw SQL files."),
    ("assistant", "Noted: alembic for every migration."),
    ("user", "Actually, the staging database listens on port 6543, not 5432."),
    ("assistant", "Thanks, I will use port 6543 for staging."),
]


def run_demo(echo: Echo = print, settings: Settings | None = None, ns: str = DEMO_NS) -> None:
    """Run the demo in namespace ``ns`` (wiped first, so it is re-runnable), printing through ``echo``."""
    from kgmem import KGMem
    from kgmem.graph.schema import apply_schema
    from kgmem.maintenance import delete_namespace
    from kgmem.server.local import is_local

    settings = settings or load_settings()
    if is_local(settings):
        from kgmem.server import LocalNeo4j

        echo(f"Starting the local Neo4j {settings.neo4j.version} (first run installs it from Maven Central) ...")
        status = LocalNeo4j(settings).up()
        how = "already running" if status.reused else f"started in {status.start_seconds:.1f} s"
        echo(f"  Neo4j {how}: {status.bolt_uri}")
        settings = load_settings()  # `up` may have just written the generated password
    settings = settings.model_copy(update={"namespace": ns})

    with KGMem(settings) as mem:
        apply_schema(mem.graph)
        delete_namespace(mem.graph, mem.vectors, ns)  # re-runnable demo
        echo("Loading the embedding model (offline) ...")
        _errors_and_fixes(mem, echo)
        _conversation(mem, echo)
        _search(mem, echo)
    _where_to_look(settings, echo)


def _errors_and_fixes(mem, echo: Echo) -> None:  # type: ignore[no-untyped-def]
    echo("\n== 1. A tool fails, a fix works, kgmem learns it ==")
    for session, error in _ERRORS:
        obs = mem.tool_result("psql", {"host": "staging-db"}, error=error, session=session)
        echo(f"[{session}] psql failed: {error}")
        echo(f"  pattern ({obs.category}, seen {obs.occurrences}x): {obs.pattern}")
        if obs.fixes:
            best = obs.fixes[0]
            flag = "AUTO-APPLY" if best.auto_apply else "suggest"
            echo(f"  kgmem hands back: {flag} '{best.description}' (confidence {best.confidence:.2f})")
        else:
            echo("  no known fix yet")
        outcome = mem.resolve(obs, _FIX, success=True)
        echo(f"  the agent applied the fix and it worked -> confidence now {outcome.confidence:.2f}")
    session, error = _SIMILAR
    obs = mem.tool_result("psql", {"socket": "default"}, error=error, session=session)
    echo(f"\n[{session}] a similar but different error: {error}")
    for fix in obs.fixes[:3]:
        via = f"via a similar error (similarity {fix.similarity:.2f})" if fix.kind == "similar" else "direct"
        echo(f"  suggested {via}: '{fix.description}' confidence {fix.confidence:.2f} auto_apply={fix.auto_apply}")
    if not obs.fixes:
        echo("  no fix suggested for it")


def _conversation(mem, echo: Echo) -> None:  # type: ignore[no-untyped-def]
    echo("\n== 2. A conversation; kgmem extracts what is worth keeping ==")
    for role, text in _CONVERSATION:
        mem.turn(session="chat-1", role=role, text=text)
        echo(f"  {role}: {text}")
    mem.end_session("chat-1")
    mem.wait_for_analysis(timeout=60)
    stats = mem.analysis_stats()
    echo(f"  extractor: {stats.get('extractor', 'offline')}")
    for item in mem.learnings()[:8]:
        echo(f"  learned [{item['type']}] {item['content']} (confidence {item['confidence']:.2f})")


def _search(mem, echo: Echo) -> None:  # type: ignore[no-untyped-def]
    query = "the staging database refuses connections"
    echo(f"\n== 3. Graph RAG search: '{query}' ==")
    result = mem.search(query, k=6)
    for hit in result.hits:
        legs = "+".join(hit.provenance.legs) if getattr(hit, "provenance", None) else ""
        echo(f"  {hit.score:.3f} [{hit.kind}] {hit.text[:110]}  ({legs})")
    context = mem.context(query, max_tokens=300)
    echo("\nPrompt context kgmem would hand the agent:")
    for line in context.text.splitlines():
        echo(f"  | {line}")


def _where_to_look(settings: Settings, echo: Echo) -> None:
    echo("\n== Browse the graph ==")
    echo(f"  Neo4j Browser: http://127.0.0.1:{settings.neo4j.http_port}/browser/")
    echo(f"  connect URL:   {settings.neo4j.uri}   user: {settings.neo4j.user}")
    echo(f"  password:      in {settings.config_file} (key neo4j.password)")
    echo(f"  try:           :param ns => {settings.namespace!r}")
    echo("                 " + _BROWSER_QUERY)
    echo("  stop Neo4j:    kgmem down")

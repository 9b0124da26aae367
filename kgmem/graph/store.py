"""The one place kgmem talks to Neo4j.

:class:`GraphStore` runs named Cypher files (``kgmem.cypher``) with parameters, one
round trip per call, inside the driver's managed transactions (which retry
transient errors). Connection failures are retried with tenacity and then raised
as :class:`~kgmem.errors.BackendUnavailable`.
"""

from __future__ import annotations

import logging
from typing import Any

import neo4j
from neo4j.exceptions import AuthError, ServiceUnavailable, SessionExpired
from tenacity import retry, retry_if_exception_type, stop_after_attempt, wait_exponential

from kgmem import cypher
from kgmem.config import Settings
from kgmem.errors import BackendUnavailable, ConfigError
from kgmem.ids import ns_key

log = logging.getLogger(__name__)

_RETRYABLE = (ServiceUnavailable, SessionExpired, ConnectionError, OSError)


def connect(settings: Settings) -> neo4j.Driver:
    """Create the driver for ``settings.neo4j`` (create once per process, then inject)."""
    return neo4j.GraphDatabase.driver(settings.neo4j.uri, **driver_options(settings))


def driver_options(settings: Settings) -> dict[str, Any]:
    """The driver options kgmem uses (shared by the sync and the async driver)."""
    cfg = settings.neo4j
    if cfg.password is None:
        raise ConfigError(
            "neo4j.password: not set — run `kgmem up` (local server; it writes the password to "
            f"{settings.config_file}) or set KGMEM_NEO4J__PASSWORD"
        )
    return dict(
        auth=(cfg.user, cfg.password.get_secret_value()),
        max_connection_pool_size=50,
        connection_acquisition_timeout=10.0,
        # GraphStore retries unreachable-server errors itself (and the learning engine spools);
        # the driver's own 30 s default retry inside each attempt would stack up to minutes.
        max_transaction_retry_time=5.0,
        # Planner notices (e.g. "relationship type MENTIONS does not exist yet" on a young graph)
        # are expected for kgmem's fixed queries; they would only flood the user's log.
        notifications_min_severity=neo4j.NotificationMinimumSeverity.OFF,
    )


def with_ns_key(params: dict[str, Any]) -> dict[str, Any]:
    """``params`` plus ``ns_key``, the full-text namespace token (kgmem.ids), when ``ns`` is given."""
    if isinstance(params.get("ns"), str) and "ns_key" not in params:
        return {**params, "ns_key": ns_key(params["ns"])}
    return params


class GraphStore:
    """Runs named Cypher statements against one database.

    Args:
        driver: an open :class:`neo4j.Driver` (owned by the caller).
        database: the database name (community edition has one: ``neo4j``).
        attempts: how often a call is tried when Neo4j is unreachable.
    """

    def __init__(self, driver: neo4j.Driver, database: str = "neo4j", attempts: int = 3) -> None:
        self.driver = driver
        self.database = database
        self._attempts = attempts

    def write(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Run ``cypher/<name>.cypher`` in a write transaction; return its rows as dicts."""
        return self._run(name, params, neo4j.RoutingControl.WRITE)

    def read(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Run ``cypher/<name>.cypher`` in a read transaction; return its rows as dicts."""
        return self._run(name, params, neo4j.RoutingControl.READ)

    def write_statements(self, name: str, **params: Any) -> None:
        """Run every statement of a multi-statement file (schema DDL), each in its own transaction."""
        for stmt in cypher.statements(name):
            self._execute(stmt, params, neo4j.RoutingControl.WRITE)

    def write_autocommit(self, name: str, **params: Any) -> None:
        """Run a statement that manages its own transactions (``CALL {} IN TRANSACTIONS``)."""
        query = cypher.load(name)
        try:
            with self.driver.session(database=self.database) as session:
                session.run(query, params).consume()  # type: ignore[arg-type]
        except _RETRYABLE as exc:
            raise BackendUnavailable(f"Neo4j is not reachable: {exc}") from exc

    def ping(self) -> None:
        """Raise :class:`BackendUnavailable` unless Neo4j answers."""
        try:
            self.driver.verify_connectivity()
        except AuthError:
            raise
        except Exception as exc:  # noqa: BLE001 - any failure means "not reachable"
            raise BackendUnavailable(f"Neo4j is not reachable: {exc}") from exc

    def _run(self, name: str, params: dict[str, Any], routing: neo4j.RoutingControl) -> list[dict[str, Any]]:
        return self._execute(cypher.load(name), with_ns_key(params), routing)

    def _execute(self, query: str, params: dict[str, Any], routing: neo4j.RoutingControl) -> list[dict[str, Any]]:
        @retry(
            retry=retry_if_exception_type(_RETRYABLE),
            stop=stop_after_attempt(self._attempts),
            wait=wait_exponential(multiplier=0.2, max=2.0),
            reraise=True,
        )
        def attempt() -> list[dict[str, Any]]:
            records, _, _ = self.driver.execute_query(
                query, parameters_=params, routing_=routing, database_=self.database
            )
            return [r.data() for r in records]

        try:
            return attempt()
        except _RETRYABLE as exc:
            raise BackendUnavailable(f"Neo4j is not reachable: {exc}") from exc

"""The one place kgmem talks to Neo4j.

:class:`GraphStore` runs named Cypher files (``kgmem.cypher``) with parameters, one
round trip per call, inside the driver's managed transactions (which retry
transient errors). Connection failures are retried with tenacity and then raised
as :class:`~kgmem.errors.GraphUnavailable` (a :class:`~kgmem.errors.BackendUnavailable`).

Failure mode (docs/reliability.md): a call never waits on a dead server longer than
``[neo4j] deadline_s`` (plus one driver attempt), and once a call has found Neo4j
unreachable every call of the next ``offline_retry_s`` seconds fails at once — callers spool
(writes) or degrade (search) instead of each paying the wait again.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from typing import Any

import neo4j
from neo4j.exceptions import (
    AuthError,
    DatabaseError,
    IncompleteCommit,
    ServiceUnavailable,
    SessionExpired,
    TransientError,
)
from tenacity import (
    RetryCallState,
    retry,
    retry_if_exception_type,
    retry_if_not_exception_type,
    wait_exponential,
)

from kgmem import cypher
from kgmem.config import Neo4jSettings, Settings
from kgmem.errors import ConfigError, GraphUnavailable, IdentifierTooLong
from kgmem.graph.keys import MAX_NS_CHARS
from kgmem.ids import ns_key

log = logging.getLogger(__name__)

_RETRYABLE = (ServiceUnavailable, SessionExpired, ConnectionError, OSError)
_TRANSIENT_ATTEMPTS = 6
# What a caller catches to spool a write instead of raising it into the agent's loop.
UNREACHABLE: tuple[type[BaseException], ...] = (GraphUnavailable, ServiceUnavailable, SessionExpired)


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
        connection_acquisition_timeout=cfg.deadline_s,
        connection_timeout=cfg.connection_timeout_s,
        # GraphStore retries unreachable-server errors itself (and the clients spool);
        # the driver's own 30 s default retry inside each attempt would stack up to minutes.
        max_transaction_retry_time=cfg.max_transaction_retry_time_s,
        # Planner notices (e.g. "relationship type MENTIONS does not exist yet" on a young graph)
        # are expected for kgmem's fixed queries; they would only flood the user's log.
        notifications_min_severity=neo4j.NotificationMinimumSeverity.OFF,
    )


_SCALARS = frozenset((str, int, float, bool, type(None), bytes, bytearray))


def record_dict(record: neo4j.Record) -> dict[str, Any]:
    """A record as a dict, like ``record.data()``. Rows of scalars, lists and maps (what kgmem's
    statements return) are taken as they are: ``data()`` rebuilds every value through abstract-type
    checks, which cost more than a search's own Python work (the rows of a search's two reads). A row
    holding anything else (a node, a path, a temporal value) goes through ``data()``."""
    values = tuple(record)
    if all(_plain(v) for v in values):
        return dict(zip(record.keys(), values))
    return record.data()


def _plain(value: Any) -> bool:
    # A loop over a stack of the containers still to look into, not a call per value: on the rows of a
    # search's reads (thousands of values) the calls were most of the check's cost.
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is dict:
            item = item.values()
        elif kind is not list:
            if kind in _SCALARS:
                continue
            return False
        for v in item:
            kind = type(v)
            if kind in _SCALARS:
                continue
            if kind is dict or kind is list:
                stack.append(v)
            else:
                return False
    return True


def with_ns_key(params: dict[str, Any]) -> dict[str, Any]:
    """``params`` plus ``ns_key``, the full-text namespace token (kgmem.ids), when ``ns`` is given."""
    if isinstance(params.get("ns"), str) and "ns_key" not in params:
        return {**params, "ns_key": ns_key(params["ns"])}
    return params


@dataclass(frozen=True)
class FailurePolicy:
    """How a :class:`GraphStore` treats an unreachable Neo4j (``[neo4j]`` settings)."""

    attempts: int = 2
    deadline_s: float = 6.0
    offline_retry_s: float = 2.0

    @classmethod
    def from_settings(cls, cfg: Neo4jSettings) -> FailurePolicy:
        return cls(cfg.attempts, cfg.deadline_s, cfg.offline_retry_s)


class GraphStore:
    """Runs named Cypher statements against one database.

    Args:
        driver: an open :class:`neo4j.Driver` (owned by the caller).
        database: the database name (community edition has one: ``neo4j``).
        attempts: how often a call is tried when Neo4j is unreachable (overrides ``policy``).
        policy: attempts, overall deadline and offline window (default: the ``[neo4j]`` defaults).
    """

    def __init__(
        self,
        driver: neo4j.Driver,
        database: str = "neo4j",
        attempts: int | None = None,
        policy: FailurePolicy | None = None,
    ) -> None:
        self.driver = driver
        self.database = database
        self.policy = policy or FailurePolicy()
        self._attempts = attempts or self.policy.attempts
        self._down_until = 0.0  # monotonic time until which calls fail at once (the server was just found down)
        self._state_lock = threading.Lock()

    @property
    def offline(self) -> bool:
        """True while a recent call found Neo4j unreachable (calls now fail at once)."""
        return time.monotonic() < self._down_until

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
        self._check_params(params)
        try:
            with self.driver.session(database=self.database) as session:
                session.run(query, params).consume()  # type: ignore[arg-type]
        except _RETRYABLE as exc:
            raise self._went_down(exc) from exc
        except DatabaseError as exc:
            too_large = _too_large(exc)
            if too_large is None:
                raise
            raise too_large from exc

    def ping(self) -> None:
        """Raise :class:`BackendUnavailable` unless Neo4j answers."""
        if self.offline:
            raise GraphUnavailable("Neo4j was unreachable moments ago; not retrying yet")
        try:
            self.driver.verify_connectivity()
        except AuthError:
            raise
        except Exception as exc:  # noqa: BLE001 - any failure means "not reachable"
            raise self._went_down(exc) from exc

    def _run(self, name: str, params: dict[str, Any], routing: neo4j.RoutingControl) -> list[dict[str, Any]]:
        return self._execute(cypher.load(name), with_ns_key(params), routing)

    def _execute(self, query: str, params: dict[str, Any], routing: neo4j.RoutingControl) -> list[dict[str, Any]]:
        self._before(params)

        @retry(**self._retry_policy())
        def attempt() -> list[dict[str, Any]]:
            if routing is neo4j.RoutingControl.READ:
                return self._read_autocommit(query, params)
            records, _, _ = self.driver.execute_query(
                query, parameters_=params, routing_=routing, database_=self.database
            )
            return [record_dict(r) for r in records]

        try:
            return attempt()
        except (*_RETRYABLE, TransientError, DatabaseError) as exc:
            mapped = self._failure(exc)
            if mapped is exc:
                raise
            raise mapped from exc

    def _read_autocommit(self, query: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        # A read as an auto-commit transaction: RUN and PULL go out together and the answer is the
        # whole exchange — one network round trip, where a managed transaction (execute_query) waits
        # once more for its COMMIT. A read has nothing to commit; the retry policy around the call
        # replaces the managed transaction's retries, and the driver's bookmark manager (the one
        # execute_query uses) keeps reads after this process's writes causally consistent.
        with self.driver.session(
            database=self.database,
            default_access_mode=neo4j.READ_ACCESS,
            bookmark_manager=self.driver.execute_query_bookmark_manager,
        ) as session:
            return [record_dict(r) for r in session.run(query, params)]  # type: ignore[arg-type]

    # The checks, retry policy and error mapping around a call (shared with kgmem.aio's AsyncGraphStore).
    def _before(self, params: dict[str, Any]) -> None:
        self._check_params(params)
        if self.offline:
            raise GraphUnavailable(
                f"Neo4j was unreachable moments ago; not retrying for {self.policy.offline_retry_s:g} s "
                "([neo4j] offline_retry_s)"
            )

    def _retry_policy(self) -> dict[str, Any]:
        deadline, attempts = self.policy.deadline_s, self._attempts

        def give_up(state: RetryCallState) -> bool:
            # Deadlocks between concurrent writers (TransientError) outlast the driver's short retry
            # budget now and then: retry those more often, never past the deadline.
            # tenacity calls stop only after an attempt: outcome and its timestamp are set.
            failure = state.outcome.exception() if state.outcome is not None else None
            limit = _TRANSIENT_ATTEMPTS if isinstance(failure, TransientError) else attempts
            return state.attempt_number >= limit or (state.seconds_since_start or 0.0) >= deadline

        return dict(
            # IncompleteCommit: the connection broke after the commit was sent; it may have landed,
            # so running it again could count it twice — fail instead (callers spool, see docs).
            retry=retry_if_exception_type((*_RETRYABLE, TransientError))
            & retry_if_not_exception_type(IncompleteCommit),
            stop=give_up,
            wait=wait_exponential(multiplier=0.2, max=1.0),
            reraise=True,
        )

    def _failure(self, exc: BaseException) -> BaseException:
        if isinstance(exc, _RETRYABLE):
            return self._went_down(exc)
        if isinstance(exc, TransientError):  # alive but contended past the deadline: callers spool, no breaker
            return GraphUnavailable(f"Neo4j kept failing transiently until the deadline: {exc}")
        if isinstance(exc, DatabaseError):
            return _too_large(exc) or exc
        return exc

    def _went_down(self, exc: BaseException) -> GraphUnavailable:
        with self._state_lock:
            self._down_until = time.monotonic() + self.policy.offline_retry_s
        return GraphUnavailable(f"Neo4j is not reachable: {exc}")

    @staticmethod
    def _check_params(params: dict[str, Any]) -> None:
        # Every kgmem statement scopes by $ns; a namespace too long for the (ns, id) indexes
        # must fail here with a clear error, not as a driver error from deep inside a write.
        ns = params.get("ns")
        if isinstance(ns, str) and len(ns) > MAX_NS_CHARS:
            raise IdentifierTooLong(f"ns: longer than {MAX_NS_CHARS} characters ({len(ns)})")


def _too_large(exc: DatabaseError) -> IdentifierTooLong | None:
    """The kgmem error for "Property value is too large to index", else None (re-raise as is)."""
    if "too large to index" not in str(exc):
        return None
    return IdentifierTooLong(
        "a value is too large for a Neo4j index (identifiers such as tool, session, ref and "
        f"entity names must stay under ~8 KB; nothing was written): {exc.message or exc}"
    )

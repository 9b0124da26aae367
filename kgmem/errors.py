"""Exception classes. Every error kgmem raises on purpose derives from :class:`KGMemError`."""


class KGMemError(Exception):
    """Base class for kgmem errors."""


class ConfigError(KGMemError):
    """A setting is missing or invalid; the message names the key."""


class ValidationError(KGMemError, ValueError):
    """Input from a caller (or an LLM) was rejected; the message names the field."""


class PositionalArgumentError(ValidationError, TypeError):
    """A keyword-only client argument was passed by position; the message names the keywords to use."""


class BackendUnavailable(KGMemError):
    """Neo4j or Chroma could not be reached after retries."""


class AlreadyApplied(KGMemError):
    """A write guarded by ingest marks found one of them already stored (a re-run or a concurrent
    ingest got there first); nothing was written — re-read the marks and retry the rest."""


class IngestInterrupted(KGMemError):
    """`kgmem ingest` stopped because Neo4j became unreachable; what it stored is marked, so
    running the same command again continues where it stopped."""


class CypherNotFound(KGMemError):
    """A named Cypher file does not exist under cypher/ (or its name is invalid); for a
    fragment pulled in by ``// @include``, the message names the including file."""


class CypherIncludeCycle(CypherNotFound):
    """Cypher ``// @include`` lines form a cycle; the message names the chain (a -> b -> a)."""


class ServerError(KGMemError):
    """The local Neo4j server could not be installed, started or stopped."""


class JavaNotFound(ServerError):
    """No Java runtime, or one older than Neo4j needs."""


class PortInUse(ServerError):
    """A port the local Neo4j needs is taken by another process."""


class MavenUnreachable(ServerError):
    """Maven could not download Neo4j from Maven Central."""


class ServerStartFailed(ServerError):
    """The Neo4j process exited or did not answer in time; the message points at its log."""


class GeneratorError(KGMemError):
    """The text generator (LLM) gave no answer after its retries; analysis of that batch is skipped."""


class KnowledgeNotFound(KGMemError):
    """No Knowledge item with the given id in the namespace."""


class ErrorNotFound(ValidationError):
    """No error pattern with the given id in the namespace (ids are namespace-bound: another
    namespace's id is not found either)."""


# -- reports, maintenance, call graph (analyst surfaces) ------------------------------
class ReportError(KGMemError):
    """A report is unknown or its Cypher header is malformed; the message names it."""


class ReportParamError(ReportError, ValidationError):
    """A report parameter is unknown, missing or of the wrong type; the message names it."""


class ImportFormatError(ValidationError):
    """An export file (JSONL) is malformed or not allowed; the message names the line."""


class NamespaceNotEmpty(KGMemError):
    """`kgmem import` into a namespace that already holds nodes (use --replace)."""


# -- failure modes (docs/reliability.md) -------------------------------------------------
class GraphUnavailable(BackendUnavailable):
    """Neo4j did not answer within ``[neo4j] deadline_s`` (or was found down moments ago).
    Writes of tool results, turns and manual knowledge are spooled instead of raising this."""


class VectorStoreUnavailable(BackendUnavailable):
    """Chroma failed (e.g. its directory was removed). Writes mark the vector pending
    (``vector_pending = true``) and carry on; ``kgmem reindex --missing-only`` repairs it."""


class IdentifierTooLong(ValidationError):
    """A namespace is longer than allowed, or a value is too large for a Neo4j index
    (tool, session and ref identifiers are shortened to a stable hashed key instead)."""


class EmbeddingModelMismatch(KGMemError):
    """A vector collection was built with another embedding model than the configured one."""


class EmbeddingBackendError(KGMemError):
    """An embedding backend returned something other than one ``dimension``-long vector per text."""

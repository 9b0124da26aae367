"""A local Neo4j 5.26 community server without Docker: jars from Maven Central, run on Java 17."""

from kgmem.server.local import LocalNeo4j, ServerStatus

__all__ = ["LocalNeo4j", "ServerStatus"]

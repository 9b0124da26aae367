"""Neo4j access: the driver, the named-query runner and the schema."""

from kgmem.graph.store import GraphStore, connect

__all__ = ["GraphStore", "connect"]

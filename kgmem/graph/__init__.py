"""Neo4j access: the driver, the named-query runner and the schema."""

from kgmem.graph.keys import bounded_key, check_namespace
from kgmem.graph.store import FailurePolicy, GraphStore, connect

__all__ = ["FailurePolicy", "GraphStore", "bounded_key", "check_namespace", "connect"]

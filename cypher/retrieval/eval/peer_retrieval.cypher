// benchmarks/locomo.py: neo4j-graphrag VectorCypherRetriever's retrieval query (it runs after the
// vector index search, with `node` and `score` bound).
RETURN node.ref AS ref, node.text AS text, score

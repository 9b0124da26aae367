// name: graph_health
// description: Nodes per label, orphans (no relationships), nodes whose vector is not in Chroma yet, relationships per type.
// param: ns str — namespace
// column: kind — "node" or "relationship"
// column: name — label or relationship type
// column: count — how many
// column: orphans — nodes without any relationship (nodes only)
// column: vector_pending — nodes marked vector_pending (repair: `kgmem reindex --missing-only`)
// chart: hbar x=name y=count,orphans,vector_pending
CALL () {
  MATCH (n {ns: $ns})
  WITH head(labels(n)) AS name, n
  RETURN 'node' AS kind, name, count(n) AS count,
         sum(CASE WHEN NOT EXISTS { (n)--() } THEN 1 ELSE 0 END) AS orphans,
         sum(CASE WHEN n.vector_pending = true THEN 1 ELSE 0 END) AS vector_pending
  UNION ALL
  MATCH ({ns: $ns})-[r]->()
  RETURN 'relationship' AS kind, type(r) AS name, count(r) AS count, null AS orphans, null AS vector_pending
}
RETURN kind, name, count, orphans, vector_pending
ORDER BY kind, name

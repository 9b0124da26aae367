// One batch of a namespace's deletion (kgmem.maintenance.delete_namespace runs it until it deletes
// nothing). Params: ns, batch. The least connected nodes go first — a message takes its few edges
// with it, so a hub (a Concept half the messages mention) has lost them by its turn — and only
// $batch of them are kept while choosing (top-k), so no transaction's memory grows with the namespace.
MATCH (n {ns: $ns})
WITH n ORDER BY COUNT { (n)--() } LIMIT $batch
DETACH DELETE n
RETURN count(*) AS deleted

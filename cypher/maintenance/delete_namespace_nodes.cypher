// Second phase of a namespace's deletion: at most $batch of its nodes per transaction, once the first
// phase took their relationships (DETACH for an edge a concurrent writer added since). Params: ns, batch.
MATCH (n {ns: $ns})
WITH n LIMIT $batch
DETACH DELETE n
RETURN count(*) AS deleted

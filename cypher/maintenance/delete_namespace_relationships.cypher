// First phase of a namespace's deletion (kgmem.maintenance.delete_namespace runs it until it deletes
// fewer than $batch): at most $batch of the namespace's relationships per transaction. Relationships go
// before nodes because a node's DETACH DELETE carries all its edges in one transaction: 10,000 messages
// of a large namespace hold ~200,000 of them, more than a 1 GB server's transaction memory allows.
// Params: ns, batch.
MATCH (n {ns: $ns})-[r]-()
WITH DISTINCT r LIMIT $batch
DELETE r
RETURN count(*) AS deleted

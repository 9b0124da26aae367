// `kgmem import`: one batch of logged queries (retrieval session state), all properties — the judged
// marker included, so a query judged before the export stays judged. Query ids are global (feedback
// names only the id): an id that another namespace still holds is left there (not written, counted
// by the caller as skipped). Params: ns, rows: [{key, props}] (props.ns is the target namespace).
UNWIND $rows AS row
OPTIONAL MATCH (held:KgmemQuery {id: row.key.id})
WITH row, held WHERE held IS NULL OR held.ns = $ns
MERGE (q:KgmemQuery {id: row.key.id})
SET q = row.props
RETURN count(q) AS written

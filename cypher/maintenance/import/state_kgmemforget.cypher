// `kgmem import`: one batch of forget audit entries (content-free: scope kind, hashed target, who,
// when, counts). Audit ids are global: one another namespace holds is left there. Params: ns,
// rows: [{key: {id}, props}] (props.ns is the target namespace).
UNWIND $rows AS row
OPTIONAL MATCH (held:KgmemForget {id: row.key.id})
WITH row, held WHERE held IS NULL OR held.ns = $ns
MERGE (a:KgmemForget {id: row.key.id})
SET a = row.props
RETURN count(a) AS written

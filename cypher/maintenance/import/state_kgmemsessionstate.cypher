// `kgmem import`: one batch of session states (shift-detection centroid, epoch, last activity),
// all properties. Params: ns, rows: [{key: {session}, props}] (props.ns is the target).
UNWIND $rows AS row
MERGE (st:KgmemSessionState {ns: $ns, session: row.key.session})
SET st = row.props
RETURN count(st) AS written

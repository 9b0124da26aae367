// `kgmem import`: one batch of Message nodes, all properties replaced by the exported ones.
// Params: ns, rows: [{id, props}]. The label is fixed here (allow-list), never taken from the file.
UNWIND $rows AS row
MERGE (n:Message {ns: $ns, id: row.id})
SET n = row.props
RETURN count(n) AS written

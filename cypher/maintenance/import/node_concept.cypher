// `kgmem import`: one batch of Concept nodes, all properties replaced by the exported ones (df too:
// the file's MENTIONS edges are the ones it counts). Params: ns, rows: [{id, props}].
UNWIND $rows AS row
MERGE (n:Concept {ns: $ns, id: row.id})
SET n = row.props
RETURN count(n) AS written

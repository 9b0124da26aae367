// `kgmem import`: one batch of (Function)-[:CALLS]->(Function) relationships with their properties.
// Params: ns, rows: [{start, end, props}]. Runs on an empty (or just replaced) namespace, so
// CREATE reproduces parallel edges exactly (RELATES_TO may link one pair several times).
UNWIND $rows AS row
MATCH (a:Function {ns: $ns, id: row.start})
MATCH (b:Function {ns: $ns, id: row.end})
CREATE (a)-[r:CALLS]->(b)
SET r = row.props
RETURN count(r) AS written

// `kgmem import`: one batch of (Knowledge)-[:SUPERSEDED_BY]->(Knowledge) relationships with their properties.
// Params: ns, rows: [{start, end, props}]. Runs on an empty (or just replaced) namespace, so
// CREATE reproduces parallel edges exactly (RELATES_TO may link one pair several times).
UNWIND $rows AS row
MATCH (a:Knowledge {ns: $ns, id: row.start})
MATCH (b:Knowledge {ns: $ns, id: row.end})
CREATE (a)-[r:SUPERSEDED_BY]->(b)
SET r = row.props
RETURN count(r) AS written

// `kgmem import`: one batch of (ErrorPattern)-[:CAUSED_BY]->(Tool) relationships with their properties.
// Params: ns, rows: [{start, end, props}]. Runs on an empty (or just replaced) namespace, so
// CREATE reproduces parallel edges exactly (RELATES_TO may link one pair several times).
UNWIND $rows AS row
MATCH (a:ErrorPattern {ns: $ns, id: row.start})
MATCH (b:Tool {ns: $ns, id: row.end})
CREATE (a)-[r:CAUSED_BY]->(b)
SET r = row.props
RETURN count(r) AS written

// `kgmem import`: one batch of (ErrorPattern)-[:SIMILAR_TO]->(ErrorPattern) relationships with their properties.
// Params: ns, rows: [{start, end, props}]. Runs on an empty (or just replaced) namespace, so
// CREATE reproduces parallel edges exactly (RELATES_TO may link one pair several times).
UNWIND $rows AS row
MATCH (a:ErrorPattern {ns: $ns, id: row.start})
MATCH (b:ErrorPattern {ns: $ns, id: row.end})
CREATE (a)-[r:SIMILAR_TO]->(b)
SET r = row.props
RETURN count(r) AS written

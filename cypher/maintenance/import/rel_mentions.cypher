// `kgmem import`: one batch of (Message)-[:MENTIONS]->(Entity) relationships with their properties.
// Params: ns, rows: [{start, end, props}]. Runs on an empty (or just replaced) namespace, so
// CREATE reproduces parallel edges exactly (RELATES_TO may link one pair several times).
UNWIND $rows AS row
MATCH (a:Message {ns: $ns, id: row.start})
MATCH (b:Entity {ns: $ns, id: row.end})
CREATE (a)-[r:MENTIONS]->(b)
SET r = row.props
RETURN count(r) AS written

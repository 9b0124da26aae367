// `kgmem import`: one batch of (Message)-[:PART_OF]->(Session) relationships with their properties.
// Params: ns, rows: [{start, end, props}]. Runs on an empty (or just replaced) namespace, so
// CREATE reproduces parallel edges exactly (RELATES_TO may link one pair several times).
UNWIND $rows AS row
MATCH (a:Message {ns: $ns, id: row.start})
MATCH (b:Session {ns: $ns, id: row.end})
CREATE (a)-[r:PART_OF]->(b)
SET r = row.props
RETURN count(r) AS written

// `kgmem import`: one batch of (memory)-[:MENTIONS]->(Concept or Entity) relationships with their
// properties; a memory is a Message, Knowledge, ErrorPattern or Fix (kgmem/maintenance/allowlist.py).
// Params: ns, rows: [{start, end, props}]. Runs on an empty (or just replaced) namespace, so CREATE
// reproduces the edges exactly. Each end is found by an index seek per allowed label.
UNWIND $rows AS row
CALL (row) {
  MATCH (a:Message {ns: $ns, id: row.start}) RETURN a
  UNION
  MATCH (a:Knowledge {ns: $ns, id: row.start}) RETURN a
  UNION
  MATCH (a:ErrorPattern {ns: $ns, id: row.start}) RETURN a
  UNION
  MATCH (a:Fix {ns: $ns, id: row.start}) RETURN a
}
CALL (row) {
  MATCH (b:Concept {ns: $ns, id: row.end}) RETURN b
  UNION
  MATCH (b:Entity {ns: $ns, id: row.end}) RETURN b
}
CREATE (a)-[r:MENTIONS]->(b)
SET r = row.props
RETURN count(r) AS written

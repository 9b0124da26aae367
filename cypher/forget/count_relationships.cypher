// How many relationships erasing these nodes removes (a dry run's count). Params: ns, rows [{label, id}].
UNWIND $rows AS row
CALL (row) {
  MATCH (n:Message {ns: $ns, id: row.id}) WHERE row.label = 'Message' RETURN n
  UNION ALL
  MATCH (n:Knowledge {ns: $ns, id: row.id}) WHERE row.label = 'Knowledge' RETURN n
  UNION ALL
  MATCH (n:ErrorPattern {ns: $ns, id: row.id}) WHERE row.label = 'ErrorPattern' RETURN n
  UNION ALL
  MATCH (n:Fix {ns: $ns, id: row.id}) WHERE row.label = 'Fix' RETURN n
  UNION ALL
  MATCH (n:Entity {ns: $ns, id: row.id}) WHERE row.label = 'Entity' RETURN n
  UNION ALL
  MATCH (n:Session {ns: $ns, id: row.id}) WHERE row.label = 'Session' RETURN n
}
MATCH (n)-[r]-()
RETURN count(DISTINCT r) AS relationships

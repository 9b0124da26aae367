// forget id=: what each id names in the namespace (a turn, knowledge item, error pattern, fix or
// entity); an id of another namespace matches nothing. Params: ns, ids.
UNWIND $ids AS id
CALL (id) {
  MATCH (n:Message {ns: $ns, id: id}) RETURN 'Message' AS label
  UNION ALL
  MATCH (n:Knowledge {ns: $ns, id: id}) RETURN 'Knowledge' AS label
  UNION ALL
  MATCH (n:ErrorPattern {ns: $ns, id: id}) RETURN 'ErrorPattern' AS label
  UNION ALL
  MATCH (n:Fix {ns: $ns, id: id}) RETURN 'Fix' AS label
  UNION ALL
  MATCH (n:Entity {ns: $ns, id: id}) RETURN 'Entity' AS label
}
RETURN id, label

// forget everything=True: the ids of a namespace's items, per label (each is tombstoned, so a retried
// write of one does not bring it back). Params: ns.
CALL () {
  MATCH (n:Message) WHERE n.ns = $ns AND n.id IS NOT NULL RETURN 'Message' AS label, collect(n.id) AS ids
  UNION ALL
  MATCH (n:Knowledge) WHERE n.ns = $ns AND n.id IS NOT NULL RETURN 'Knowledge' AS label, collect(n.id) AS ids
  UNION ALL
  MATCH (n:ErrorPattern) WHERE n.ns = $ns AND n.id IS NOT NULL RETURN 'ErrorPattern' AS label, collect(n.id) AS ids
  UNION ALL
  MATCH (n:Fix) WHERE n.ns = $ns AND n.id IS NOT NULL RETURN 'Fix' AS label, collect(n.id) AS ids
  UNION ALL
  MATCH (n:Entity) WHERE n.ns = $ns AND n.id IS NOT NULL RETURN 'Entity' AS label, collect(n.id) AS ids
  UNION ALL
  MATCH (n:Session) WHERE n.ns = $ns AND n.id IS NOT NULL RETURN 'Session' AS label, collect(n.id) AS ids
}
RETURN label, ids

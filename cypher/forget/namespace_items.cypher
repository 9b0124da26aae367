// forget everything=True: one page of a namespace's items of one label, in id order after $after (each
// is tombstoned, so a retried write of one does not bring it back). Paged, so no read holds every id of
// a large namespace: each page is read in the (ns, id) index's order, $limit ids at a time.
// Params: ns, label, after ('' for the first page), limit.
CALL () {
  WITH 1 AS one WHERE $label = 'Message'
  MATCH (n:Message) WHERE n.ns = $ns AND n.id > $after
  WITH n ORDER BY n.ns, n.id LIMIT $limit
  RETURN n.id AS id
  UNION ALL
  WITH 1 AS one WHERE $label = 'Knowledge'
  MATCH (n:Knowledge) WHERE n.ns = $ns AND n.id > $after
  WITH n ORDER BY n.ns, n.id LIMIT $limit
  RETURN n.id AS id
  UNION ALL
  WITH 1 AS one WHERE $label = 'ErrorPattern'
  MATCH (n:ErrorPattern) WHERE n.ns = $ns AND n.id > $after
  WITH n ORDER BY n.ns, n.id LIMIT $limit
  RETURN n.id AS id
  UNION ALL
  WITH 1 AS one WHERE $label = 'Fix'
  MATCH (n:Fix) WHERE n.ns = $ns AND n.id > $after
  WITH n ORDER BY n.ns, n.id LIMIT $limit
  RETURN n.id AS id
  UNION ALL
  WITH 1 AS one WHERE $label = 'Entity'
  MATCH (n:Entity) WHERE n.ns = $ns AND n.id > $after
  WITH n ORDER BY n.ns, n.id LIMIT $limit
  RETURN n.id AS id
  UNION ALL
  WITH 1 AS one WHERE $label = 'Session'
  MATCH (n:Session) WHERE n.ns = $ns AND n.id > $after
  WITH n ORDER BY n.ns, n.id LIMIT $limit
  RETURN n.id AS id
}
RETURN collect(id) AS ids

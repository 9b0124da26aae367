// Knowledge items and entities whose vectors are not in Chroma yet (repair). Params: ns, limit.
CALL () {
  MATCH (k:Knowledge {ns: $ns, vector_pending: true})
  RETURN 'knowledge' AS kind, k.id AS id, k.content AS text, k.type AS type, k.source AS source
  LIMIT $limit
  UNION ALL
  MATCH (e:Entity {ns: $ns, vector_pending: true})
  RETURN 'entity' AS kind, e.id AS id, e.name AS text, null AS type, null AS source
  LIMIT $limit
}
RETURN kind, id, text, type, source

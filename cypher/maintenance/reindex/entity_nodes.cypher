// `kgmem reindex`: one page of Entity nodes with text (Chroma kind "entity"), in id order.
// Params: ns, after (last id of the previous page, '' to start), limit.
MATCH (n:Entity {ns: $ns})
WHERE n.id > $after AND n.name IS NOT NULL AND n.name <> ''
RETURN n.id AS id, n.name AS text, coalesce(n.vector_pending, false) AS pending, n.kind AS entity_kind
ORDER BY n.id
LIMIT $limit

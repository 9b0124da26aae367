// `kgmem reindex`: one page of Knowledge nodes with text (Chroma kind "knowledge"), in id order.
// Params: ns, after (last id of the previous page, '' to start), limit.
MATCH (n:Knowledge {ns: $ns})
WHERE n.id > $after AND n.content IS NOT NULL AND n.content <> ''
RETURN n.id AS id, n.content AS text, coalesce(n.vector_pending, false) AS pending, n.type AS type, n.source AS source
ORDER BY n.id
LIMIT $limit

// `kgmem reindex`: one page of Message nodes with text (Chroma kind "message"), in id order.
// Params: ns, after (last id of the previous page, '' to start), limit.
MATCH (n:Message {ns: $ns})
WHERE n.id > $after AND n.text IS NOT NULL AND n.text <> ''
RETURN n.id AS id, n.text AS text, coalesce(n.vector_pending, false) AS pending, n.session AS session, n.role AS role, n.ts AS ts, n.ref AS ref, n.seq AS seq
ORDER BY n.id
LIMIT $limit

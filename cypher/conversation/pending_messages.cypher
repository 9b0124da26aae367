// Messages whose vector is not in Chroma yet (a crash between the graph write and Chroma).
// Params: ns, limit.
MATCH (m:Message {ns: $ns})
WHERE m.vector_pending = true
RETURN m.id AS id, m.text AS text, m.role AS role, m.ref AS ref, m.ts AS ts, m.session AS session,
       m.seq AS seq
LIMIT $limit

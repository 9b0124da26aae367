// `kgmem reindex`: one page of Fix nodes with text (Chroma kind "fix"), in id order, with the
// error the fix belongs to (the learning engine's vector metadata). Params: ns, after, limit.
MATCH (n:Fix {ns: $ns})
WHERE n.id > $after AND n.description IS NOT NULL AND n.description <> ''
RETURN n.id AS id, n.description AS text, coalesce(n.vector_pending, false) AS pending, n.source AS source,
       head([(e:ErrorPattern)-[r:RESOLVED_BY]->(n) | e.id]) AS error_id
ORDER BY n.id
LIMIT $limit

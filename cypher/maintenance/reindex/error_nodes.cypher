// `kgmem reindex`: one page of ErrorPattern nodes (Chroma kind "error"), in id order.
// The embedded text is the pattern's short `signature` when the learning engine wrote one
// (that is what it embeds), else the pattern itself. Params: ns, after ('' to start), limit.
MATCH (n:ErrorPattern {ns: $ns})
WHERE n.id > $after AND coalesce(n.signature, n.pattern, '') <> ''
RETURN n.id AS id, coalesce(n.signature, n.pattern) AS text, coalesce(n.vector_pending, false) AS pending,
       n.tool AS tool, n.category AS category, n.keys AS keys
ORDER BY n.id
LIMIT $limit

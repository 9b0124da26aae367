// Error patterns whose vector is not in Chroma yet (e.g. after tool_results(index=False)).
// Params: ns, limit.
MATCH (e:ErrorPattern)
WHERE e.vector_pending = true AND e.ns = $ns
RETURN e.id AS id, e.signature AS signature, e.keys AS keys, e.tool AS tool, e.category AS category, e.template AS template,
       true AS vector_pending
LIMIT $limit

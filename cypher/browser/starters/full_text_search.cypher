// name: Full-text search
// description: The keyword (BM25) leg of retrieval: search every text property (set $q first).
CALL db.index.fulltext.queryNodes('kgmem_text', $q) YIELD node, score
WHERE node.ns = $ns
RETURN labels(node)[0] AS kind, coalesce(node.pattern, node.content, node.text, node.description, node.name) AS text, score
LIMIT 25

// The keyword leg's hits: `node`, `label` and BM25 `score`, best first, at most $n, in namespace $ns.
// Included by retrieval/keyword and retrieval/search_expand (parameters: see retrieval/keyword).
CALL db.index.fulltext.queryNodes($index, $query, {limit: $fetch}) YIELD node, score
WITH node, score,
     CASE WHEN node:Message THEN 'Message' WHEN node:Knowledge THEN 'Knowledge'
          WHEN node:ErrorPattern THEN 'ErrorPattern' WHEN node:Fix THEN 'Fix'
          WHEN node:Entity THEN 'Entity' END AS label
WHERE node.ns = $ns AND label IN $labels
  AND ($session IS NULL OR label <> 'Message' OR node.session = $session)
  AND coalesce(node.is_active, true)
WITH node, label, score
ORDER BY score DESC
LIMIT $n

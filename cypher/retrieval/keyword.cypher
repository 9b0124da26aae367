// Keyword (BM25) leg: one full-text index query, scoped to one namespace (docs/design.md §6.3).
// Params: index, query (Lucene, built by kgmem.retrieval.text), ns, labels (searchable labels),
//         session (null = any; restricts Message hits only), fetch (Lucene limit), n (rows returned).
CALL db.index.fulltext.queryNodes($index, $query, {limit: $fetch}) YIELD node, score
WITH node, score,
     CASE WHEN node:Message THEN 'Message' WHEN node:Knowledge THEN 'Knowledge'
          WHEN node:ErrorPattern THEN 'ErrorPattern' WHEN node:Fix THEN 'Fix'
          WHEN node:Entity THEN 'Entity' END AS label
WHERE node.ns = $ns AND label IN $labels
  AND ($session IS NULL OR label <> 'Message' OR node.session = $session)
  AND coalesce(node.is_active, true)
RETURN node.id AS id, label, score,
       coalesce(node.text, node.content, node.description, node.pattern, node.name) AS text,
       node.ref AS ref, node.session AS session, node.ts AS ts, node.role AS role,
       node.confidence AS confidence, node.alpha AS alpha, node.beta AS beta,
       node.updated_at AS updated_at, node.last_used AS last_used
ORDER BY score DESC
LIMIT $n

// Keyword (BM25) leg: one full-text index query, scoped to one namespace (docs/design.md §6.3).
// Params: index, query (Lucene, built by kgmem.retrieval.text), ns, labels (searchable labels),
//         session (null = any; restricts Message hits only), fetch (Lucene limit), n (candidates returned),
//         payload (false: id, label and score only — Graph RAG reads the properties when it hydrates).
// Returns one row: rows, the candidates best first.
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
// One row holding the list (best first): a row per candidate costs the client a Bolt message each.
RETURN collect(CASE WHEN $payload THEN {
  id: node.id, label: label, score: score,
  text: coalesce(node.text, node.content, node.description, node.pattern, node.name),
  ref: node.ref, session: node.session, ts: node.ts, role: node.role,
  confidence: node.confidence, alpha: node.alpha, beta: node.beta,
  updated_at: node.updated_at, last_used: node.last_used
} ELSE {id: node.id, label: label, score: score} END) AS rows

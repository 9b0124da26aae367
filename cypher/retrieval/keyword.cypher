// Keyword (BM25) leg: one full-text index query, scoped to one namespace.
// Params: index, head ("+ns_key:<key> +(") and body (the Lucene clauses of the question's other content
//         words), names (capitalised words that may name a speaker: [{probe, as_word, as_speaker}], all
//         built and escaped by kgmem.retrieval.text), ns, labels (searchable labels),
//         session (null = any; restricts Message hits only), fetch (Lucene limit), n (candidates returned),
//         payload (false: id, label and score only — Graph RAG reads the properties when it hydrates),
//         as_of (null = now: superseded knowledge is left out; an ISO time: what was valid then).
// Returns one row: rows, the candidates best first.
// A name someone in the namespace speaks by (a turn's role) takes its as_speaker clauses (the text less,
// or not at all: keyword_speaker_text_weight): the other speaker's turns that merely address them ("Hey
// Melanie!") say little about them. Any other name is an ordinary word. One probe per name, limit 1, in
// this same round trip; no names (the default weight 1) = no probe.
CALL () {
  UNWIND $names AS name
  CALL (name) {
    CALL db.index.fulltext.queryNodes($index, name.probe, {limit: 1}) YIELD node
    RETURN count(node) AS speakers
  }
  RETURN reduce(q = $head + $body, c IN collect(CASE WHEN speakers > 0 THEN name.as_speaker ELSE name.as_word END)
                | q + ' ' + c) + ')' AS query
}
CALL db.index.fulltext.queryNodes($index, query, {limit: $fetch}) YIELD node, score
WITH node, score,
     CASE WHEN node:Message THEN 'Message' WHEN node:Knowledge THEN 'Knowledge'
          WHEN node:ErrorPattern THEN 'ErrorPattern' WHEN node:Fix THEN 'Fix'
          WHEN node:Entity THEN 'Entity' END AS label
WHERE node.ns = $ns AND label IN $labels
  AND ($session IS NULL OR label <> 'Message' OR node.session = $session)
  AND all(v IN [node] WHERE
    // @include retrieval/fragments/valid
  )
WITH node, label, score
ORDER BY score DESC
LIMIT $n
// One row holding the list (best first): a row per candidate costs the client a Bolt message each.
RETURN collect(CASE WHEN $payload THEN {
  id: node.id, label: label, score: score,
  text: coalesce(node.text, node.content, node.description, node.pattern, node.name),
  ref: node.ref, session: node.session, ts: node.ts, role: node.role,
  confidence: node.confidence, alpha: node.alpha, beta: node.beta,
  updated_at: node.updated_at, last_used: node.last_used,
  valid_from: node.valid_from, valid_until: node.valid_until
} ELSE {id: node.id, label: label, score: score} END) AS rows

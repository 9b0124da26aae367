// The concept hop (kgmem.retrieval.concept_hop): from each seed, through the concepts it MENTIONS
// that at most $max_df memories mention (specific ones: a name every turn carries is not walked,
// which also bounds the fan-out), to the other memories that MENTION them. Per seed, the $per_seed
// neighbours sharing the most specific concepts (Σ df^-alpha), each with the concepts shared and the
// properties the ranking needs, and the seed's degree: how many such walkable concepts it mentions (a
// long reply mentions dozens, so its share per concept is smaller). Concept lookups are index seeks
// (MENTIONS from the seed node).
// Params: ns, seeds [{id, label}], max_df, alpha, per_seed, labels (allowed result labels),
//         session (null = any; restricts Message neighbours),
//         as_of (null = now: superseded knowledge is no neighbour; an ISO time: what was valid then —
//         valid_from <= as_of < valid_until, and no turn said after it).
UNWIND $seeds AS seed
CALL (seed) {
  MATCH (s:Message {ns: $ns, id: seed.id}) WHERE seed.label = 'Message' RETURN s
  UNION ALL
  MATCH (s:Knowledge {ns: $ns, id: seed.id}) WHERE seed.label = 'Knowledge' RETURN s
  UNION ALL
  MATCH (s:ErrorPattern {ns: $ns, id: seed.id}) WHERE seed.label = 'ErrorPattern' RETURN s
  UNION ALL
  MATCH (s:Fix {ns: $ns, id: seed.id}) WHERE seed.label = 'Fix' RETURN s
}
CALL (seed, s) {
  MATCH (s)-[:MENTIONS]->(c:Concept)
  WHERE c.df >= 2 AND c.df <= $max_df
  MATCH (c)<-[:MENTIONS]-(n)
  WHERE n <> s AND n.ns = $ns
    AND all(v IN [n] WHERE
      // @include retrieval/fragments/valid
    )
  WITH n, collect({key: c.key, df: c.df}) AS shared, sum(toFloat(c.df) ^ (-$alpha)) AS strength,
       CASE WHEN n:Message THEN 'Message' WHEN n:Knowledge THEN 'Knowledge'
            WHEN n:ErrorPattern THEN 'ErrorPattern' WHEN n:Fix THEN 'Fix' END AS label
  WHERE label IN $labels AND ($session IS NULL OR label <> 'Message' OR n.session = $session)
  ORDER BY strength DESC, n.id
  LIMIT $per_seed
  RETURN collect({
    id: n.id, label: label, shared: shared,
    text: coalesce(n.text, n.content, n.description, n.pattern, n.name),
    ref: n.ref, session: n.session, ts: n.ts, role: n.role,
    confidence: n.confidence, alpha: n.alpha, beta: n.beta,
    updated_at: n.updated_at, last_used: n.last_used, valid_from: n.valid_from, valid_until: n.valid_until
  }) AS neighbours
}
RETURN seed.id AS seed, neighbours,
       COUNT { (s)-[:MENTIONS]->(c:Concept) WHERE c.df >= 2 AND c.df <= $max_df } AS degree

// name: top_concepts
// description: The concepts most memories mention (document frequency), with the memories of each kind that mention them.
// param: ns str — namespace
// param: limit int = 25 [1..100000] — how many concepts to return
// param: kind str = * {*,entity,phrase} — only entities (named things) or key phrases (* = both)
// param: min_df int = 1 [1..] — only concepts mentioned by at least this many memories
// column: concept — the concept's display name
// column: key — its normalised form (what aliases resolve to)
// column: kind — entity / phrase
// column: df — memories of the namespace that mention it (stored document frequency)
// column: share — df / the namespace's memories (turns, knowledge, errors, fixes; 1.0 = every one)
// column: messages — conversation turns mentioning it
// column: knowledge — knowledge items mentioning it
// column: errors — error patterns mentioning it
// column: fixes — fixes mentioning it
// chart: hbar x=concept y=df
// df is the stored count the concept writer keeps; the four per-kind columns are counted live
// (one expansion of each listed concept's MENTIONS), so a df that disagrees with their sum is a
// sign of drift. `id IS NOT NULL` (every node has one) lets the planner answer `{ns: $ns}` from the
// (ns, id) uniqueness index of each label — the memory counts and the concepts of one namespace —
// instead of scanning the label across every namespace.
WITH COUNT { MATCH (m:Message {ns: $ns}) WHERE m.id IS NOT NULL } +
     COUNT { MATCH (m:Knowledge {ns: $ns}) WHERE m.id IS NOT NULL } +
     COUNT { MATCH (m:ErrorPattern {ns: $ns}) WHERE m.id IS NOT NULL } +
     COUNT { MATCH (m:Fix {ns: $ns}) WHERE m.id IS NOT NULL } AS total
MATCH (c:Concept {ns: $ns})
WHERE c.id IS NOT NULL AND c.df >= $min_df AND ($kind = '*' OR c.kind = $kind)
WITH total, c ORDER BY c.df DESC, c.key LIMIT toInteger($limit)
CALL (c) {
  MATCH (m)-[:MENTIONS]->(c)
  WHERE m.ns = $ns
  RETURN sum(CASE WHEN m:Message THEN 1 ELSE 0 END) AS messages,
         sum(CASE WHEN m:Knowledge THEN 1 ELSE 0 END) AS knowledge,
         sum(CASE WHEN m:ErrorPattern THEN 1 ELSE 0 END) AS errors,
         sum(CASE WHEN m:Fix THEN 1 ELSE 0 END) AS fixes
}
RETURN c.name AS concept, c.key AS key, c.kind AS kind, c.df AS df,
       CASE WHEN total = 0 THEN 0.0 ELSE round(toFloat(c.df) / total, 4) END AS share,
       messages, knowledge, errors, fixes
ORDER BY df DESC, key

// name: concept_cooccurrence
// description: Pairs of concepts mentioned by the same memory: how often, and how much more often than chance (PMI, lift).
// param: ns str — namespace
// param: min_count int = 2 [1..] — only pairs mentioned together by at least this many memories
// param: limit int = 50 [1..100000] — how many pairs to return
// param: max_df_share float = 0.5 [0..1] — skip concepts mentioned by more than this share of memories (a speaker's name every turn carries); 1 keeps all
// param: per_memory int = 20 [2..1000] — pairs come from each memory's most specific (lowest df) concepts, at most this many (bounds the pairs per memory)
// param: order_by str = count {count,pmi} — rank by raw count or by PMI
// column: pair — "concept_a · concept_b"
// column: concept_a — one concept (the pair's two names in key order)
// column: concept_b — the other concept
// column: count — memories that mention both
// column: df_a — memories mentioning concept_a
// column: df_b — memories mentioning concept_b
// column: pmi — log2(count · N / (df_a · df_b)), N = memories mentioning any concept; 0 = as often as chance
// column: lift — count · N / (df_a · df_b) (2^pmi)
// chart: hbar x=pair y=count
// Cost: one pass over the namespace's MENTIONS edges for N, one over the edges of the eligible
// concepts (df at least min_count — rarer ones cannot reach it — and at most max_df_share · N),
// and at most per_memory · (per_memory - 1) / 2 pairs per memory, so a memory with 10,000
// concepts costs what a memory with per_memory does. `id IS NOT NULL` (every concept has one)
// lets the planner seek the (ns, id) uniqueness index by namespace instead of a label scan.
CALL () {
  MATCH (k:Concept {ns: $ns})
  WHERE k.id IS NOT NULL
  MATCH (m)-[:MENTIONS]->(k)
  WHERE m.ns = $ns
  RETURN count(DISTINCT m) AS total
}
MATCH (c:Concept {ns: $ns})
WHERE c.id IS NOT NULL AND c.df >= $min_count AND c.df <= $max_df_share * total
MATCH (m)-[:MENTIONS]->(c)
WHERE m.ns = $ns
WITH total, m, c ORDER BY c.df, c.key
WITH total, m, collect(c)[..toInteger($per_memory)] AS cs
WHERE size(cs) > 1
UNWIND range(0, size(cs) - 2) AS i
UNWIND range(i + 1, size(cs) - 1) AS j
WITH total, CASE WHEN cs[i].key <= cs[j].key THEN [cs[i], cs[j]] ELSE [cs[j], cs[i]] END AS pair
WITH total, pair[0] AS a, pair[1] AS b, count(*) AS together
WHERE together >= $min_count
WITH a, b, together, toFloat(together) * total / (a.df * b.df) AS lift
RETURN a.name + ' · ' + b.name AS pair, a.name AS concept_a, b.name AS concept_b, together AS count,
       a.df AS df_a, b.df AS df_b, round(log(lift) / log(2), 4) AS pmi, round(lift, 4) AS lift
ORDER BY CASE WHEN $order_by = 'pmi' THEN pmi ELSE count END DESC, count DESC, pmi DESC, pair
LIMIT toInteger($limit)

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
// column: pmi — log2(count · N / (df_a · df_b)), N = the namespace's memories; 0 = as often as chance
// column: lift — count · N / (df_a · df_b) (2^pmi)
// chart: hbar x=pair y=count
// Cost: N from the (ns, id) uniqueness indexes (`id IS NOT NULL`, which every node has, lets the
// planner use them for `{ns: $ns}`); one pass over the MENTIONS edges of the eligible concepts (df at
// least min_count — rarer ones cannot reach it — and at most max_df_share · N); and at most
// per_memory · (per_memory - 1) / 2 pairs per memory, so a memory with 10,000 concepts costs what one
// with per_memory does. Each memory's concepts are listed in key order (one sort of the mention
// rows), so a pair (i < j) is already (concept_a, concept_b) without reading a property per pair.
WITH COUNT { MATCH (m:Message {ns: $ns}) WHERE m.id IS NOT NULL } +
     COUNT { MATCH (m:Knowledge {ns: $ns}) WHERE m.id IS NOT NULL } +
     COUNT { MATCH (m:ErrorPattern {ns: $ns}) WHERE m.id IS NOT NULL } +
     COUNT { MATCH (m:Fix {ns: $ns}) WHERE m.id IS NOT NULL } AS total
MATCH (c:Concept {ns: $ns})
WHERE c.id IS NOT NULL AND c.df >= $min_count AND c.df <= $max_df_share * total
MATCH (m)-[:MENTIONS]->(c)
WHERE m.ns = $ns
WITH total, m, c ORDER BY c.key
WITH total, m, collect(c) AS cs
WITH total, CASE WHEN size(cs) <= $per_memory THEN cs
                 ELSE COLLECT { UNWIND cs AS x WITH x ORDER BY x.df, x.key LIMIT toInteger($per_memory)
                                WITH x ORDER BY x.key RETURN x }
            END AS cs
WHERE size(cs) > 1
UNWIND range(0, size(cs) - 2) AS i
UNWIND range(i + 1, size(cs) - 1) AS j
WITH total, cs[i] AS a, cs[j] AS b, count(*) AS together
WHERE together >= $min_count
WITH a, b, together, toFloat(together) * total / (a.df * b.df) AS lift
RETURN a.name + ' · ' + b.name AS pair, a.name AS concept_a, b.name AS concept_b, together AS count,
       a.df AS df_a, b.df AS df_b, round(log(lift) / log(2), 4) AS pmi, round(lift, 4) AS lift
ORDER BY CASE WHEN $order_by = 'pmi' THEN pmi ELSE count END DESC, count DESC, pmi DESC, pair
LIMIT toInteger($limit)

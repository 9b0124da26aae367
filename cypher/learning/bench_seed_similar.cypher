// Benchmark fixture: SIMILAR_TO edges between the bench patterns, 2 or 3 outgoing per pattern
// (so ~5 per pattern counting both directions), random targets. Params: ns, n, seed.
UNWIND range(0, $n - 1) AS i
CALL (i) {
  MATCH (a:ErrorPattern {ns: $ns, id: 'bench-' + toString(i)})
  UNWIND range(1, 2 + i % 2) AS j
  WITH a, i, j, (i * 7919 + j * 104729 + $seed * 31) % $n AS t
  MATCH (b:ErrorPattern {ns: $ns, id: 'bench-' + toString(t)})
  WHERE b <> a
  CREATE (a)-[:SIMILAR_TO {score: 0.74 + ((i + j) % 26) / 100.0}]->(b)
} IN TRANSACTIONS OF 10000 ROWS

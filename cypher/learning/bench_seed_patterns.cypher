// Benchmark fixture (benchmarks/learning.py propagation): $n synthetic error patterns in
// namespace $ns, each resolved by the shared fix 'bench-fix' (create it first with
// learning/bench_seed_fix). Run with write_autocommit. Params: ns, n, now.
UNWIND range(0, $n - 1) AS i
CALL (i) {
  MATCH (f:Fix {ns: $ns, id: 'bench-fix'})
  CREATE (e:ErrorPattern {ns: $ns, id: 'bench-' + toString(i), tool: 'bench', category: 'general',
                          pattern: 'bench pattern ' + toString(i), occurrences: 1, vector_pending: false,
                          created_at: $now, first_seen: $now, last_seen: $now})
  CREATE (e)-[:RESOLVED_BY {confidence: 0.5, successes: 0, failures: 0, alpha: 1.0, beta: 1.0,
                            source: 'observed', created_at: $now}]->(f)
} IN TRANSACTIONS OF 10000 ROWS

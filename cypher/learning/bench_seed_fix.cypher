// Benchmark fixture: the fix shared by all bench patterns. Params: ns, now.
MERGE (f:Fix {ns: $ns, id: 'bench-fix'})
  ON CREATE SET f.description = 'bench: retry', f.source = 'observed', f.created_at = $now,
                f.updated_at = $now, f.vector_pending = false

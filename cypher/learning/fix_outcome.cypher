// The error→fix edge as it stands: the answer to a repeated judgement (kgmem/learning/judgement.py).
// Params: ns, error_id, fix_id.
MATCH (e:ErrorPattern {ns: $ns, id: $error_id})-[r:RESOLVED_BY]->(f:Fix {ns: $ns, id: $fix_id})
RETURN e.id AS error_id, f.id AS fix_id, f.description AS description, r.confidence AS confidence,
       r.successes AS successes, r.failures AS failures

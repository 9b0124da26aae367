// Edges found by static analysis: source 'ast', confidence 1.0. Re-scanning confirms them;
// an edge first discovered by observation is promoted to 'ast'.
// Params: ns, now, rows: [{caller_id, caller, callee_id, callee}].
UNWIND $rows AS row
MERGE (a:Function {ns: $ns, id: row.caller_id})
  ON CREATE SET a.qualname = row.caller, a.created_at = $now, a.updated_at = $now
MERGE (b:Function {ns: $ns, id: row.callee_id})
  ON CREATE SET b.qualname = row.callee, b.created_at = $now, b.updated_at = $now
MERGE (a)-[c:CALLS]->(b)
  ON CREATE SET c.created_at = $now, c.times_confirmed = 0
SET c.source = 'ast', c.confidence = 1.0, c.last_confirmed = $now, c.decay_steps = 0
RETURN count(c) AS written

// One observation that changed several functions together (seed 003 §2.6), one transaction.
// Every pair of known functions either confirms the existing edge(s) between them, in either
// direction (diminishing boost c + boost·(max − c), never lowering an edge already above max,
// times_confirmed + 1, last_confirmed = now), or gets a new caller→callee edge with
// source 'observation' at new_confidence. Pairs naming an unknown function are ignored.
// Params: ns, now, session, boost, max_confidence, new_confidence, pairs: [{a, b}] (Function ids).
UNWIND $pairs AS p
MATCH (a:Function {ns: $ns, id: p.a})
MATCH (b:Function {ns: $ns, id: p.b})
OPTIONAL MATCH (a)-[fwd:CALLS]->(b)
OPTIONAL MATCH (b)-[bwd:CALLS]->(a)
WITH a, b, [x IN [fwd, bwd] WHERE x IS NOT NULL] AS existing
FOREACH (c IN existing |
  SET c.confidence = CASE WHEN c.confidence >= $max_confidence THEN c.confidence
                          ELSE c.confidence + $boost * ($max_confidence - c.confidence) END,
      c.times_confirmed = coalesce(c.times_confirmed, 0) + 1,
      c.last_confirmed = $now, c.last_session = $session, c.decay_steps = 0)
FOREACH (_ IN CASE WHEN size(existing) = 0 THEN [1] ELSE [] END |
  MERGE (a)-[c:CALLS]->(b)
    ON CREATE SET c.source = 'observation', c.confidence = $new_confidence, c.times_confirmed = 0,
                  c.created_at = $now, c.last_confirmed = $now, c.last_session = $session, c.decay_steps = 0)
RETURN sum(CASE WHEN size(existing) > 0 THEN 1 ELSE 0 END) AS confirmed,
       sum(CASE WHEN size(existing) = 0 THEN 1 ELSE 0 END) AS discovered

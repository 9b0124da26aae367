// Stale call-graph decay (seed 003 §2.6), as a batch job. Only 'observation' edges decay; AST
// edges are re-confirmed by every scan. An edge not confirmed during the last `threshold`
// sessions of its namespace loses `step` per session beyond that (the 10th session without a
// confirmation costs the first step), down to `floor`. decay_steps remembers the steps already
// applied, so re-running the job never decays twice; a confirmation resets it.
// Params: ns, threshold, step, floor.
OPTIONAL MATCH (s:Session {ns: $ns}) WHERE s.started_at IS NOT NULL
WITH collect(datetime(s.started_at)) AS starts
MATCH (:Function {ns: $ns})-[c:CALLS {source: 'observation'}]->(:Function)
WITH c, size([t IN starts WHERE t > datetime(coalesce(c.last_confirmed, c.created_at))]) AS since
WITH c, CASE WHEN since >= $threshold THEN since - $threshold + 1 ELSE 0 END AS due
WITH c, due, due - coalesce(c.decay_steps, 0) AS apply
WHERE apply > 0
WITH c, due, c.confidence AS old, c.confidence - apply * $step AS lowered
SET c.confidence = CASE WHEN old <= $floor THEN old WHEN lowered < $floor THEN $floor ELSE lowered END,
    c.decay_steps = due
RETURN count(c) AS decayed

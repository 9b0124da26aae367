// Feedback on retrieved items (docs/design.md §6.8): add each signal to the Beta posterior of the
// node it judges — a positive delta to alpha, a negative one (as magnitude) to beta.
// Params: ns, now, prior_alpha, prior_beta, updates [{id, label, delta}].
UNWIND $updates AS u
CALL (u) {
  MATCH (n:Message {ns: $ns, id: u.id}) WHERE u.label = 'Message' RETURN n
  UNION ALL
  MATCH (n:Knowledge {ns: $ns, id: u.id}) WHERE u.label = 'Knowledge' RETURN n
  UNION ALL
  MATCH (n:ErrorPattern {ns: $ns, id: u.id}) WHERE u.label = 'ErrorPattern' RETURN n
  UNION ALL
  MATCH (n:Fix {ns: $ns, id: u.id}) WHERE u.label = 'Fix' RETURN n
  UNION ALL
  MATCH (n:Entity {ns: $ns, id: u.id}) WHERE u.label = 'Entity' RETURN n
}
SET n.alpha = coalesce(n.alpha, $prior_alpha) + CASE WHEN u.delta > 0 THEN u.delta ELSE 0.0 END,
    n.beta = coalesce(n.beta, $prior_beta) + CASE WHEN u.delta < 0 THEN -u.delta ELSE 0.0 END,
    n.feedback_count = coalesce(n.feedback_count, 0) + 1,
    n.last_used = CASE WHEN u.delta > 0 THEN $now ELSE n.last_used END
RETURN n.id AS id, n.alpha AS alpha, n.beta AS beta

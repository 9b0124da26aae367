// Feedback inside a session (BQAR, issue 11): add each signal to the session's overlay, not to the
// global posterior. Copy-on-write: the first signal on an item records the global (alpha, beta) it had
// then as the overlay's base. d_* are the deltas merged at session end; v_* the session's view of them
// (damped when the conversation shifts). Params: ns, session, now, now_ms, prior_alpha, prior_beta,
// updates [{id, label, delta}].
MERGE (st:KgmemSessionState {ns: $ns, session: $session})
ON CREATE SET st.forked_ms = $now_ms, st.n = 0, st.shifts = 0
WITH st
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
MERGE (o:KgmemOverlay {ns: $ns, session: $session, item_id: u.id})
ON CREATE SET o.label = u.label, o.base_alpha = coalesce(n.alpha, $prior_alpha),
              o.base_beta = coalesce(n.beta, $prior_beta), o.d_alpha = 0.0, o.d_beta = 0.0,
              o.v_alpha = 0.0, o.v_beta = 0.0, o.created_at = $now
SET o.d_alpha = o.d_alpha + CASE WHEN u.delta > 0 THEN u.delta ELSE 0.0 END,
    o.d_beta = o.d_beta + CASE WHEN u.delta < 0 THEN -u.delta ELSE 0.0 END,
    o.v_alpha = o.v_alpha + CASE WHEN u.delta > 0 THEN u.delta ELSE 0.0 END,
    o.v_beta = o.v_beta + CASE WHEN u.delta < 0 THEN -u.delta ELSE 0.0 END,
    o.updated_at = $now
RETURN u.id AS id, coalesce(n.alpha, $prior_alpha) + o.v_alpha AS alpha,
       coalesce(n.beta, $prior_beta) + o.v_beta AS beta

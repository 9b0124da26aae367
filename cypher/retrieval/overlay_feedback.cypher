// Feedback inside a session (BQAR, issue 11): add each signal to the session's overlay, not to the
// global posterior. Copy-on-write: the first signal on an item records the global (alpha, beta) it had
// then as the overlay's base. d_* are the deltas merged at session end; v_* the session's view of them,
// as of the overlay's shift epoch (expand.cypher damps it by $damping per conversation shift since).
// A signal judges a query made at shift epoch $epoch: the view is brought to the later of the two
// epochs and the signal damped for the shifts after its query ($epoch null: a query that ran no shift
// detection; its signal counts at the session's current epoch, as stored). last_ms (the session's last activity)
// drives the expiry of never-ended sessions (overlay_stale.cypher).
// Params: ns, session, now, now_ms, epoch, damping, prior_alpha, prior_beta, updates [{id, label, delta}].
MERGE (st:KgmemSessionState {ns: $ns, session: $session})
ON CREATE SET st.forked_ms = $now_ms, st.n = 0, st.shifts = 0
SET st.last_ms = $now_ms
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
              o.v_alpha = 0.0, o.v_beta = 0.0, o.epoch = coalesce($epoch, st.shifts, 0), o.created_at = $now
WITH u, n, o, coalesce(o.epoch, 0) AS was, coalesce($epoch, st.shifts, 0) AS asked
WITH u, n, o, was, asked, CASE WHEN asked > was THEN asked ELSE was END AS now_epoch,
     CASE WHEN u.delta > 0 THEN u.delta ELSE 0.0 END AS plus,
     CASE WHEN u.delta < 0 THEN -u.delta ELSE 0.0 END AS minus
WITH u, n, o, plus, minus, $damping ^ (now_epoch - was) AS keep, CASE WHEN $epoch IS NULL THEN 1.0 ELSE $damping ^ (now_epoch - asked) END AS late, now_epoch
SET o.d_alpha = o.d_alpha + plus,
    o.d_beta = o.d_beta + minus,
    o.v_alpha = o.v_alpha * keep + plus * late,
    o.v_beta = o.v_beta * keep + minus * late,
    o.epoch = now_epoch,
    o.updated_at = $now, o.updated_ms = $now_ms
RETURN u.id AS id, coalesce(n.alpha, $prior_alpha) + o.v_alpha AS alpha,
       coalesce(n.beta, $prior_beta) + o.v_beta AS beta

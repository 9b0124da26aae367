// Judge one query (docs/retrieval.md "Feedback", BQAR): one judgement per query id, however often it is
// retried and from however many processes. In ONE statement: lock the query's KgmemQuery node, read
// its judged marker, set it, and — only if it was not set — apply the signals:
//   * to the global Beta posteriors (alpha += a positive delta, beta += a negative one's magnitude)
//     for a query made outside a session, or in a session that has ended since (session_ended_ms,
//     set by overlay_merge.cypher): late feedback reaches the global posteriors at once;
//   * otherwise to the session's overlay (copy-on-write: the first signal on an item records the
//     global (alpha, beta) as the overlay's base). d_* are the deltas merged at session end; v_* the
//     session's view of them, as of the overlay's shift epoch (expand.cypher damps it by $damping per
//     conversation shift since). A signal judges a query made at shift epoch $epoch: the view is
//     brought to the later of the two epochs and the signal damped for the shifts after its query
//     ($epoch null: a query that ran no shift detection; it counts at the session's current epoch).
//     last_ms (the session's last activity) drives the expiry of never-ended sessions.
// The query node is MERGEd: a query of this process whose log entry (query_log.cypher, written in
// the background) has not landed yet is created from $log; that later write leaves the marker alone.
// Its namespace and session are read from the node (an import may have moved it), not taken from
// the caller's cached copy.
// Params: query_id, log (the query's log properties), now, now_ms, epoch, damping,
//         prior_alpha, prior_beta, outcome (text, recorded), updates [{id, label, delta}].
MERGE (q:KgmemQuery {id: $query_id})
ON CREATE SET q += $log
// A plain write first: it takes q's write lock, so the marker read below sees the committed result of
// any concurrent judgement of the same query (which holds the lock until it commits).
SET q.feedback_ms = $now_ms
WITH q
SET q.feedback_calls = coalesce(q.feedback_calls, 0) + 1
WITH q, q.ns AS ns, q.session AS session, q.judged_ms IS NULL AS fresh,
     CASE WHEN q.judged_ms IS NOT NULL THEN q.judged_to
          WHEN q.session IS NULL OR q.session_ended_ms IS NOT NULL THEN 'global'
          ELSE 'overlay' END AS target
SET q.judged_ms = coalesce(q.judged_ms, $now_ms), q.judged_to = target,
    q.judged_outcome = coalesce(q.judged_outcome, $outcome)
WITH q, ns, session, fresh, target
CALL (ns, fresh, target) {
  WITH ns, fresh, target WHERE fresh AND target = 'global'
  UNWIND $updates AS u
  CALL (ns, u) {
    MATCH (n:Message {ns: ns, id: u.id}) WHERE u.label = 'Message' RETURN n
    UNION ALL
    MATCH (n:Knowledge {ns: ns, id: u.id}) WHERE u.label = 'Knowledge' RETURN n
    UNION ALL
    MATCH (n:ErrorPattern {ns: ns, id: u.id}) WHERE u.label = 'ErrorPattern' RETURN n
    UNION ALL
    MATCH (n:Fix {ns: ns, id: u.id}) WHERE u.label = 'Fix' RETURN n
    UNION ALL
    MATCH (n:Entity {ns: ns, id: u.id}) WHERE u.label = 'Entity' RETURN n
  }
  SET n.alpha = coalesce(n.alpha, $prior_alpha) + CASE WHEN u.delta > 0 THEN u.delta ELSE 0.0 END,
      n.beta = coalesce(n.beta, $prior_beta) + CASE WHEN u.delta < 0 THEN -u.delta ELSE 0.0 END,
      n.feedback_count = coalesce(n.feedback_count, 0) + 1,
      n.last_used = CASE WHEN u.delta > 0 THEN $now ELSE n.last_used END
  RETURN collect({id: n.id, alpha: n.alpha, beta: n.beta}) AS global_rows
}
CALL (ns, session, fresh, target) {
  WITH ns, session, fresh, target WHERE fresh AND target = 'overlay'
  MERGE (st:KgmemSessionState {ns: ns, session: session})
  ON CREATE SET st.forked_ms = $now_ms, st.n = 0, st.shifts = 0
  SET st.last_ms = $now_ms
  WITH ns, session, st
  UNWIND $updates AS u
  CALL (ns, u) {
    MATCH (n:Message {ns: ns, id: u.id}) WHERE u.label = 'Message' RETURN n
    UNION ALL
    MATCH (n:Knowledge {ns: ns, id: u.id}) WHERE u.label = 'Knowledge' RETURN n
    UNION ALL
    MATCH (n:ErrorPattern {ns: ns, id: u.id}) WHERE u.label = 'ErrorPattern' RETURN n
    UNION ALL
    MATCH (n:Fix {ns: ns, id: u.id}) WHERE u.label = 'Fix' RETURN n
    UNION ALL
    MATCH (n:Entity {ns: ns, id: u.id}) WHERE u.label = 'Entity' RETURN n
  }
  MERGE (o:KgmemOverlay {ns: ns, session: session, item_id: u.id})
  ON CREATE SET o.label = u.label, o.base_alpha = coalesce(n.alpha, $prior_alpha),
                o.base_beta = coalesce(n.beta, $prior_beta), o.d_alpha = 0.0, o.d_beta = 0.0,
                o.v_alpha = 0.0, o.v_beta = 0.0, o.epoch = coalesce($epoch, st.shifts, 0), o.created_at = $now
  WITH u, n, o, coalesce(o.epoch, 0) AS was, coalesce($epoch, st.shifts, 0) AS asked
  WITH u, n, o, was, asked, CASE WHEN asked > was THEN asked ELSE was END AS now_epoch,
       CASE WHEN u.delta > 0 THEN u.delta ELSE 0.0 END AS plus,
       CASE WHEN u.delta < 0 THEN -u.delta ELSE 0.0 END AS minus
  WITH u, n, o, plus, minus, now_epoch, $damping ^ (now_epoch - was) AS keep,
       CASE WHEN $epoch IS NULL THEN 1.0 ELSE $damping ^ (now_epoch - asked) END AS late
  SET o.d_alpha = o.d_alpha + plus,
      o.d_beta = o.d_beta + minus,
      o.v_alpha = o.v_alpha * keep + plus * late,
      o.v_beta = o.v_beta * keep + minus * late,
      o.epoch = now_epoch,
      o.updated_at = $now, o.updated_ms = $now_ms
  RETURN collect({id: u.id, alpha: coalesce(n.alpha, $prior_alpha) + o.v_alpha,
                  beta: coalesce(n.beta, $prior_beta) + o.v_beta}) AS overlay_rows
}
RETURN fresh AS counted, target, q.feedback_calls AS calls, global_rows + overlay_rows AS rows

// Session end (BQAR §11): three-way merge of session overlays into the global posteriors, for one or
// more sessions ($targets: end_session, or the expiry of never-ended sessions, overlay_stale.cypher).
// merged = base + ours + theirs = current + (d_alpha, d_beta); the read of the current value is inside
// the SET expression, so it happens under the node's write lock and concurrent merges of other sessions
// (or plain feedback) are never lost. Returns, per session and item, the base, our delta and the merged
// value, from which kgmem.retrieval.bqar.three_way_merge derives "theirs" and conflicts. The overlays
// and the session states are deleted. First, every logged query of the session is marked ended
// (session_ended_ms, index kgmem_query_session): feedback on it from now on goes straight to the
// global posteriors (feedback.cypher) instead of an overlay nobody would merge before the TTL. The
// marking takes each query's write lock before the overlays are read, so a judgement running
// concurrently either lands in an overlay this merge then sees, or sees the marker and goes global.
// Params: targets [{ns, session}], now, now_ms, prior_alpha, prior_beta.
UNWIND $targets AS t
CALL (t) {
  MATCH (q:KgmemQuery {ns: t.ns, session: t.session})
  SET q.session_ended_ms = coalesce(q.session_ended_ms, $now_ms)
  RETURN count(q) AS ended_queries
}
CALL (t) {
  MATCH (o:KgmemOverlay {ns: t.ns, session: t.session})
  OPTIONAL CALL (o) {
    MATCH (n:Message {ns: o.ns, id: o.item_id}) WHERE o.label = 'Message' RETURN n
    UNION ALL
    MATCH (n:Knowledge {ns: o.ns, id: o.item_id}) WHERE o.label = 'Knowledge' RETURN n
    UNION ALL
    MATCH (n:ErrorPattern {ns: o.ns, id: o.item_id}) WHERE o.label = 'ErrorPattern' RETURN n
    UNION ALL
    MATCH (n:Fix {ns: o.ns, id: o.item_id}) WHERE o.label = 'Fix' RETURN n
    UNION ALL
    MATCH (n:Entity {ns: o.ns, id: o.item_id}) WHERE o.label = 'Entity' RETURN n
  }
  FOREACH (x IN CASE WHEN n IS NULL THEN [] ELSE [n] END |
    SET x.alpha = coalesce(x.alpha, $prior_alpha) + o.d_alpha,
        x.beta = coalesce(x.beta, $prior_beta) + o.d_beta,
        x.feedback_count = coalesce(x.feedback_count, 0) + 1,
        x.last_used = CASE WHEN o.d_alpha > 0 THEN $now ELSE x.last_used END)
  WITH o, n, o.item_id AS id, o.base_alpha AS base_alpha, o.base_beta AS base_beta,
       o.d_alpha AS d_alpha, o.d_beta AS d_beta
  WITH o, id, base_alpha, base_beta, d_alpha, d_beta, n.alpha AS alpha, n.beta AS beta
  DELETE o
  RETURN collect({id: id, base_alpha: base_alpha, base_beta: base_beta, d_alpha: d_alpha, d_beta: d_beta,
                  alpha: alpha, beta: beta}) AS merged
}
OPTIONAL MATCH (st:KgmemSessionState {ns: t.ns, session: t.session})
DETACH DELETE st
RETURN t.ns AS ns, t.session AS session, merged

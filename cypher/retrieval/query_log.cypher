// Remember searches: each one's hits, the ones rendered into a context, its session and the
// session's shift epoch, so feedback can name the query_id from any process until the entry expires
// (TTL, epoch ms). Several searches in one statement (those that ended while the previous write was
// waiting or running). The same write prunes up to $prune expired entries (index kgmem_query_expires)
// and stores each session's shift-detection state and last activity (last_ms: the overlay TTL) when
// there is one — the last entry of a session wins — and a shift itself writes nothing else
// (expand.cypher damps the overlay view by epoch).
// Params: entries [{id, ns, session, query, preset, hit_ids, hit_kinds, included, now_ms, expires_ms,
// state ({centroid, n, shifts} or null)}], now_ms (prune entries expired before it), prune.
UNWIND $entries AS e
MERGE (q:KgmemQuery {id: e.id})
SET q.ns = e.ns, q.session = e.session, q.query = e.query, q.preset = e.preset,
    q.hit_ids = e.hit_ids, q.hit_kinds = e.hit_kinds, q.included = e.included,
    q.created_ms = e.now_ms, q.expires_ms = e.expires_ms, q.epoch = e.state.shifts
FOREACH (_ IN CASE WHEN e.state IS NULL OR e.session IS NULL THEN [] ELSE [1] END |
  MERGE (st:KgmemSessionState {ns: e.ns, session: e.session})
  ON CREATE SET st.forked_ms = e.now_ms
  SET st.centroid = e.state.centroid, st.n = e.state.n, st.shifts = e.state.shifts, st.last_ms = e.now_ms)
WITH count(*) AS written
CALL () {
  MATCH (old:KgmemQuery) WHERE old.expires_ms < $now_ms
  WITH old LIMIT $prune
  DELETE old
  RETURN count(*) AS pruned
}
RETURN written, pruned

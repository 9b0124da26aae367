// Remember one search (issue 11): its hits, the ones rendered into a context, its session and the
// session's shift epoch, so feedback can name the query_id from any process until the entry expires
// (TTL, epoch ms). The same write prunes up to $prune expired entries (index kgmem_query_expires) and
// stores the session's shift-detection state and last activity (last_ms: the overlay TTL) when there
// is one — a shift itself writes nothing else (expand.cypher damps the overlay view by epoch).
// Params: id, ns, session, query, preset, hit_ids, hit_kinds, included, now_ms, expires_ms, prune,
// state ({centroid, n, shifts} or null).
MERGE (q:KgmemQuery {id: $id})
SET q.ns = $ns, q.session = $session, q.query = $query, q.preset = $preset,
    q.hit_ids = $hit_ids, q.hit_kinds = $hit_kinds, q.included = $included,
    q.created_ms = $now_ms, q.expires_ms = $expires_ms, q.epoch = $state.shifts
FOREACH (_ IN CASE WHEN $state IS NULL OR $session IS NULL THEN [] ELSE [1] END |
  MERGE (st:KgmemSessionState {ns: $ns, session: $session})
  ON CREATE SET st.forked_ms = $now_ms
  SET st.centroid = $state.centroid, st.n = $state.n, st.shifts = $state.shifts, st.last_ms = $now_ms)
WITH q
CALL () {
  MATCH (old:KgmemQuery) WHERE old.expires_ms < $now_ms
  WITH old LIMIT $prune
  DELETE old
  RETURN count(*) AS pruned
}
RETURN pruned

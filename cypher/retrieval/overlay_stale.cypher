// Sessions that never ended (BQAR overlay TTL): session states whose last activity (a search or a
// feedback in the session, last_ms) is older than $cutoff_ms, oldest first — their overlays are then
// merged by overlay_merge.cypher. Index kgmem_session_state_last; states written before last_ms
// existed fall back to their creation time (forked_ms). Params: ns (null = every namespace),
// cutoff_ms, limit.
CALL () {
  MATCH (st:KgmemSessionState) WHERE st.last_ms < $cutoff_ms RETURN st
  UNION
  MATCH (st:KgmemSessionState) WHERE st.last_ms IS NULL AND st.forked_ms < $cutoff_ms RETURN st
}
WITH st WHERE $ns IS NULL OR st.ns = $ns
RETURN st.ns AS ns, st.session AS session, coalesce(st.last_ms, st.forked_ms) AS last_ms
ORDER BY last_ms
LIMIT $limit

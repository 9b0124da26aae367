// A dry run's count of erase_retrieval_state. Params: ns, sessions, ids, needle.
CALL () {
  MATCH (q:KgmemQuery {ns: $ns})
  WHERE q.session IN $sessions
     OR any(h IN coalesce(q.hit_ids, []) WHERE h IN $ids)
     OR ($needle IS NOT NULL AND toLower(coalesce(q.query, '')) CONTAINS $needle)
  RETURN count(q) AS queries
}
CALL () {
  MATCH (o:KgmemOverlay {ns: $ns})
  WHERE o.session IN $sessions OR o.item_id IN $ids
  RETURN count(o) AS overlays
}
CALL () {
  MATCH (st:KgmemSessionState {ns: $ns})
  WHERE st.session IN $sessions
  RETURN count(st) AS session_states
}
RETURN queries, overlays, session_states

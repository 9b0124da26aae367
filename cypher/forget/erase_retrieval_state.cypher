// The retrieval state that names forgotten sessions or items (kgmem.forget.erase): logged queries of
// those sessions, or whose hits name the items, or whose text holds the needle (an entity's name);
// BQAR overlays of those sessions or on those items; the sessions' shift states (derived from their
// queries). Global posteriors live on the item nodes and go with them. Params: ns, sessions (names),
// ids, needle (lower-cased, or null).
CALL () {
  MATCH (q:KgmemQuery {ns: $ns})
  WHERE q.session IN $sessions
     OR any(h IN coalesce(q.hit_ids, []) WHERE h IN $ids)
     OR ($needle IS NOT NULL AND toLower(coalesce(q.query, '')) CONTAINS $needle)
  DETACH DELETE q
  RETURN count(*) AS queries
}
CALL () {
  MATCH (o:KgmemOverlay {ns: $ns})
  WHERE o.session IN $sessions OR o.item_id IN $ids
  DETACH DELETE o
  RETURN count(*) AS overlays
}
CALL () {
  MATCH (st:KgmemSessionState {ns: $ns})
  WHERE st.session IN $sessions
  DETACH DELETE st
  RETURN count(*) AS session_states
}
RETURN queries, overlays, session_states

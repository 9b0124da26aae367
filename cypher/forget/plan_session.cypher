// forget session=: what one session erases. Its turns; the knowledge only it supports (a manual
// item or one another session also saw only loses this session's provenance); the error patterns
// seen only in it (the others lose its occurrences); the fixes its recoveries named that no other
// session names. Params: ns, session_id.
MATCH (s:Session {ns: $ns, id: $session_id})
CALL (s) {
  OPTIONAL MATCH (m:Message)-[:PART_OF]->(s)
  RETURN collect(m.id) AS messages
}
CALL (s) {
  OPTIONAL MATCH (k:Knowledge)-[:FROM_SESSION]->(s)
  WITH k, COUNT { (k)-[:FROM_SESSION]->(o:Session) WHERE o <> s } AS others
  RETURN collect(CASE WHEN others = 0 AND NOT coalesce(k.is_manual, false) THEN k.id END) AS knowledge,
         collect(CASE WHEN others > 0 OR coalesce(k.is_manual, false) THEN k.id END) AS knowledge_kept
}
CALL (s) {
  OPTIONAL MATCH (e:ErrorPattern)-[r:IN_SESSION]->(s)
  WITH e, r, COUNT { (e)-[:IN_SESSION]->(o:Session) WHERE o <> s } AS others
  RETURN collect(CASE WHEN others = 0 THEN e.id END) AS errors,
         collect(CASE WHEN others > 0 THEN e.id END) AS errors_kept,
         [f IN collect(r.recovery_fix) + collect(r.declared_fix) WHERE f IS NOT NULL] AS named_fixes
}
CALL (s, named_fixes) {
  UNWIND named_fixes AS fid
  MATCH (f:Fix {ns: $ns, id: fid})
  // another session's recovery with this fix goes through an error the fix resolves
  WHERE NOT EXISTS {
    MATCH (f)<-[:RESOLVED_BY]-(:ErrorPattern)-[r:IN_SESSION]->(o:Session)
    WHERE o <> s AND (r.recovery_fix = f.id OR r.declared_fix = f.id)
  }
  RETURN collect(DISTINCT f.id) AS fixes
}
RETURN s.key AS key, messages, knowledge, knowledge_kept, errors, errors_kept, fixes

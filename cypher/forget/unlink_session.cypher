// A forgotten session's provenance on what stays: knowledge another source still supports loses the
// session (its FROM_SESSION edge and its name in source_sessions); an error pattern seen in other
// sessions too loses this session's occurrences and edge (which held the failing call's parameters),
// its example, which may be this session's message, and the forget's mark (forget/mark_session);
// contradictions lose the session's name and go when no other session saw them.
// Params: ns, session_id, key, knowledge, errors.
CALL () {
  UNWIND $knowledge AS kid
  MATCH (k:Knowledge {ns: $ns, id: kid})
  OPTIONAL MATCH (k)-[f:FROM_SESSION]->(:Session {ns: $ns, id: $session_id})
  DELETE f
  SET k.source_sessions = [x IN coalesce(k.source_sessions, []) WHERE x <> $key]
  RETURN count(f) AS provenance
}
CALL () {
  UNWIND $errors AS eid
  MATCH (e:ErrorPattern {ns: $ns, id: eid})-[r:IN_SESSION]->(:Session {ns: $ns, id: $session_id})
  SET e.occurrences = CASE WHEN e.occurrences > r.count THEN e.occurrences - r.count ELSE 0 END,
      e.example = e.signature, e.forgetting = null
  DELETE r
  RETURN count(r) AS occurrences
}
CALL () {
  MATCH (:Knowledge {ns: $ns})-[c:CONTRADICTS]->(:Knowledge)
  WHERE $key IN c.sessions
  SET c.sessions = [x IN c.sessions WHERE x <> $key]
  WITH c WHERE size(c.sessions) = 0
  DELETE c
  RETURN count(c) AS contradictions
}
RETURN provenance, occurrences, contradictions

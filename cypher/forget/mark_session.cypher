// A session being forgotten: marked, in a transaction of its own, before its tombstones and its
// plan are written. Marking takes the session node's write lock, so a writer in another process
// whose transaction holds it (the turn store, the knowledge store, the learning write: each locks its
// sessions) commits first and the forget's plan sees what it wrote; a writer that takes the lock after
// the mark sees it and writes nothing of the session (record_turns, apply_knowledge, apply_events).
// The session's error patterns are marked too, taking their locks: a fix outcome (resolve, a
// correction) names an error pattern, not a session, and one whose transaction holds the pattern
// commits first (its fix is then planned with the pattern); a later one reads the mark and writes no
// fix to a pattern whose sessions are all being forgotten (learning/apply_events). The session node
// goes with the erase; a pattern that stays loses its mark then (forget/unlink_session).
// Params: ns, session_id, forget.
MATCH (s:Session {ns: $ns, id: $session_id})
SET s.forgetting = $forget
WITH s
CALL (s) {
  MATCH (e:ErrorPattern)-[:IN_SESSION]->(s)
  SET e.forgetting = $forget
  RETURN count(e) AS errors
}
RETURN count(s) AS marked

// A session being forgotten: marked, in a transaction of its own, before its tombstones and its
// plan are written. Marking takes the session node's write lock, so a writer in another process
// whose transaction holds it (the turn store, the knowledge store: both lock their session) commits
// first and the forget's plan sees what it wrote; a writer that takes the lock after the mark sees it
// and writes nothing of the session (record_turns, apply_knowledge). The node goes with the erase.
// Params: ns, session_id, forget.
MATCH (s:Session {ns: $ns, id: $session_id})
SET s.forgetting = $forget
RETURN count(s) AS marked

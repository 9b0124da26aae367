// Mark a session ended. Params: ns, id, key, now. Creates the session if it was never seen.
MERGE (s:Session {ns: $ns, id: $id})
  ON CREATE SET s.key = $key, s.started_at = $now, s.created_at = $now, s.turns = 0
SET s.ended_at = $now, s.updated_at = $now
RETURN s.id AS id, s.turns AS turns

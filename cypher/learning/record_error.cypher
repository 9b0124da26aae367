// One tool error event, in one transaction: MERGE the pattern, its tool and session.
// Params: ns, id, tool_id, session_id, tool, session, pattern, category, example, now.
// Returns whether the pattern still needs its vector written to Chroma.
MERGE (t:Tool {ns: $ns, id: $tool_id})
  ON CREATE SET t.name = $tool, t.created_at = $now
SET t.updated_at = $now
MERGE (e:ErrorPattern {ns: $ns, id: $id})
  ON CREATE SET e.tool = $tool, e.pattern = $pattern, e.category = $category,
                e.occurrences = 0, e.first_seen = $now, e.created_at = $now,
                e.vector_pending = true
SET e.occurrences = e.occurrences + 1, e.last_seen = $now, e.updated_at = $now,
    e.example = $example
MERGE (e)-[:CAUSED_BY]->(t)
WITH e
CALL (e) {
  WITH e WHERE $session_id IS NOT NULL
  MERGE (s:Session {ns: $ns, id: $session_id})
    ON CREATE SET s.key = $session, s.started_at = $now, s.created_at = $now, s.turns = 0
  SET s.updated_at = $now
  MERGE (e)-[r:IN_SESSION]->(s)
    ON CREATE SET r.count = 0
  SET r.count = r.count + 1, r.last_seen = $now
}
RETURN e.id AS id, e.occurrences AS occurrences, e.vector_pending AS vector_pending

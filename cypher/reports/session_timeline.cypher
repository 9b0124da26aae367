// name: session_timeline
// description: Per session, in time order: messages, errors, fixes and knowledge learned.
// param: ns str — namespace
// param: days int = 30 [0..36500] — sessions started in the last N days
// param: limit int = 100 [1..100000] — how many sessions (most recent first, shown oldest first)
// column: session — session key
// column: started_at — start (ISO-8601 UTC)
// column: ended_at — end, if ended
// column: messages — conversation turns stored
// column: errors — distinct error patterns seen
// column: error_events — error events (sum of counts)
// column: fixes — distinct fixes known for those errors
// column: knowledge — knowledge items learned from the session
// chart: bar x=session y=errors,fixes,knowledge
// Compared as text (first 19 characters, UTC): a value that is not a timestamp is skipped, never fatal.
// (Kept in the header: Neo4j Browser rejects a guide query with comment lines inside it.)
MATCH (s:Session {ns: $ns})
WHERE s.started_at =~ '[0-9]{4}-[0-9]{2}-[0-9]{2}T.*'
  AND left(s.started_at, 19) >= left(toString(datetime({timezone: 'UTC'}) - duration({days: $days})), 19)
WITH s ORDER BY s.started_at DESC LIMIT toInteger($limit)
CALL (s) {
  OPTIONAL MATCH (e:ErrorPattern)-[r:IN_SESSION]->(s)
  OPTIONAL MATCH (e)-[:RESOLVED_BY]->(f:Fix)
  RETURN count(DISTINCT e) AS errors, count(DISTINCT f) AS fixes
}
CALL (s) {
  OPTIONAL MATCH (e:ErrorPattern)-[r:IN_SESSION]->(s)
  RETURN coalesce(sum(r.count), 0) AS error_events
}
RETURN s.key AS session, s.started_at AS started_at, s.ended_at AS ended_at,
       COUNT { (:Message)-[:PART_OF]->(s) } AS messages, errors, error_events, fixes,
       COUNT { (:Knowledge)-[:FROM_SESSION]->(s) } AS knowledge
ORDER BY started_at

// name: Latest session
// description: The most recent session: its conversation (NEXT chain), its errors and what was learned from it.
MATCH (s:Session {ns: $ns})
WITH s ORDER BY s.started_at DESC LIMIT 1
OPTIONAL MATCH m = (:Message)-[:PART_OF]->(s)
OPTIONAL MATCH e = (:ErrorPattern)-[:IN_SESSION]->(s)
OPTIONAL MATCH k = (:Knowledge)-[:FROM_SESSION]->(s)
RETURN s, collect(DISTINCT m) AS messages, collect(DISTINCT e) AS errors, collect(DISTINCT k) AS knowledge

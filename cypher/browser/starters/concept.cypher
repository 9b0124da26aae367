// name: What do we know about X
// description: A concept (set $concept: its name or normalised key, any case) with the memories that mention it — most recent first, errors with their fixes — and the concepts they share.
MATCH (c:Concept {ns: $ns})
WHERE c.id IS NOT NULL AND (c.key = toLower(trim($concept)) OR toLower(c.name) = toLower(trim($concept)))
CALL (c) {
  MATCH (m)-[r:MENTIONS]->(c)
  WHERE m.ns = $ns
  WITH m, r ORDER BY coalesce(m.last_seen, m.last_seen_at, m.ts, m.updated_at, m.created_at) DESC LIMIT 50
  OPTIONAL MATCH fix = (m:ErrorPattern)-[:RESOLVED_BY]->(:Fix)
  RETURN collect(DISTINCT m) AS memories, collect(DISTINCT r) AS mentions, collect(fix) AS fixes
}
CALL (c, memories) {
  UNWIND memories AS m
  MATCH (m)-[:MENTIONS]->(other:Concept)
  WHERE other <> c AND other.ns = $ns
  WITH other, count(m) AS shared ORDER BY shared DESC, other.df LIMIT 10
  RETURN collect(other) AS related
}
RETURN c, memories, mentions, fixes, related

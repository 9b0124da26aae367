// benchmarks/concept_reports.py: one batch of synthetic memories and their MENTIONS of
// concepts already created by concept_graph_concepts (looked up by position, one label scan per
// batch: the bench must not depend on an index it measures). Params: ns, ns_key, rows: [{label,
// id, text, concepts: [position in the ordered concept list]}].
MATCH (c:Concept {ns: $ns})
WITH c ORDER BY c.id
WITH collect(c) AS concepts
UNWIND $rows AS row
CALL (row) {
  WITH row WHERE row.label = 'Message'
  CREATE (m:Message {ns: $ns, id: row.id, text: row.text, role: 'speaker', ts: row.ts, ns_key: $ns_key})
  RETURN m
  UNION
  WITH row WHERE row.label = 'Knowledge'
  CREATE (m:Knowledge {ns: $ns, id: row.id, content: row.text, type: 'fact', confidence: 0.7, ns_key: $ns_key})
  RETURN m
  UNION
  WITH row WHERE row.label = 'ErrorPattern'
  CREATE (m:ErrorPattern {ns: $ns, id: row.id, pattern: row.text, tool: 'bash', occurrences: 1, last_seen: row.ts,
                          ns_key: $ns_key})
  RETURN m
  UNION
  WITH row WHERE row.label = 'Fix'
  CREATE (m:Fix {ns: $ns, id: row.id, description: row.text, source: 'observed', ns_key: $ns_key})
  RETURN m
}
WITH m, row, concepts
UNWIND row.concepts AS position
WITH m, concepts[position] AS c
CREATE (m)-[:MENTIONS]->(c)
RETURN count(*) AS mentions

// Erase one batch of items, in one transaction (kgmem.forget.erase): the nodes with every
// relationship they have (MENTIONS, NEXT, PART_OF, FROM_SESSION, ABOUT, CONTRADICTS, RESOLVED_BY,
// SIMILAR_TO, IN_SESSION, CAUSED_BY ...), the triples (RELATES_TO) a knowledge item carried between
// entities that stay, and the concept graph's counts: each concept's document frequency loses the
// erased mentions, and a concept no memory mentions any more goes. Items already gone are skipped
// (a resumed forget runs its batches again). Returns per label the nodes erased and how many of them
// had a vector in Chroma. Params: ns, rows [{label, id}].
UNWIND $rows AS row
CALL (row) {
  MATCH (n:Message {ns: $ns, id: row.id}) WHERE row.label = 'Message' RETURN n
  UNION ALL
  MATCH (n:Knowledge {ns: $ns, id: row.id}) WHERE row.label = 'Knowledge' RETURN n
  UNION ALL
  MATCH (n:ErrorPattern {ns: $ns, id: row.id}) WHERE row.label = 'ErrorPattern' RETURN n
  UNION ALL
  MATCH (n:Fix {ns: $ns, id: row.id}) WHERE row.label = 'Fix' RETURN n
  UNION ALL
  MATCH (n:Entity {ns: $ns, id: row.id}) WHERE row.label = 'Entity' RETURN n
  UNION ALL
  MATCH (n:Session {ns: $ns, id: row.id}) WHERE row.label = 'Session' RETURN n
}
WITH collect(n) AS nodes
CALL (nodes) {
  UNWIND nodes AS k
  WITH k WHERE k:Knowledge
  MATCH (k)-[:ABOUT]->(:Entity)-[t:RELATES_TO {knowledge_id: k.id}]->(:Entity)
  DELETE t
  RETURN count(t) AS triples
}
CALL (nodes) {
  UNWIND nodes AS m
  MATCH (m)-[r:MENTIONS]->(c:Concept)
  WITH c, count(r) AS lost
  SET c.df = c.df - lost
  RETURN collect(c) AS touched
}
CALL (nodes) {
  UNWIND nodes AS n
  MATCH (n)-[r]-()
  RETURN count(DISTINCT r) AS relationships
}
CALL (nodes) {
  UNWIND nodes AS n
  // vector_pending: its vector was never written to Chroma (the vectors count leaves it out)
  WITH n, head(labels(n)) AS label, coalesce(n.vector_pending, false) AS pending
  DETACH DELETE n
  RETURN label, count(*) AS erased, sum(CASE WHEN pending THEN 0 ELSE 1 END) AS vectors
}
WITH triples, touched, relationships, collect({label: label, n: erased, vectors: vectors}) AS erased
CALL (touched) {
  UNWIND touched AS c
  WITH c WHERE NOT EXISTS { (c)<-[:MENTIONS]-() }
  DETACH DELETE c
  RETURN count(*) AS concepts
}
RETURN erased, triples + relationships AS relationships, concepts

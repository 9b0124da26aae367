// After the vectors of new patterns/fixes are in Chroma: link SIMILAR_TO neighbours
// (undirected MERGE: one edge per pair whatever the order), clear vector_pending, and
// return the fixes of the neighbours of $ids (what a new error can already borrow).
// Params: ns, now, links: [{a, b, score}], error_ids, fix_ids, ids.
CALL () {
  UNWIND $links AS l
  MATCH (a:ErrorPattern {ns: $ns, id: l.a})
  MATCH (b:ErrorPattern {ns: $ns, id: l.b})
  // ON CREATE only: re-linking a pair (a re-index) never re-scores it nor clears the
  // contradicted / confirmed evidence its fix outcomes left (apply_events).
  MERGE (a)-[s:SIMILAR_TO]-(b)
    ON CREATE SET s.score = l.score, s.created_at = $now
}
CALL () {
  UNWIND $error_ids AS id
  MATCH (e:ErrorPattern {ns: $ns, id: id})
  SET e.vector_pending = false
}
CALL () {
  UNWIND $fix_ids AS id
  MATCH (f:Fix {ns: $ns, id: id})
  SET f.vector_pending = false
}
UNWIND $ids AS id
MATCH (e:ErrorPattern {ns: $ns, id: id})
OPTIONAL MATCH (e)-[s:SIMILAR_TO]-(n:ErrorPattern)-[r:RESOLVED_BY]->(f:Fix)
WHERE n <> e AND coalesce(s.contradicted, 0) <= coalesce(s.confirmed, 0)  // as in apply_events
RETURN id, collect(CASE WHEN f IS NULL THEN null ELSE
  {fix_id: f.id, description: f.description, source: r.source, confidence: r.confidence,
   successes: r.successes, failures: r.failures, similarity: s.score, via: n.id} END) AS similar

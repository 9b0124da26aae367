// What kgmem knows about one error pattern, read without writing: the read half of a
// *deferred* repeat (kgmem/learning/deferred.py). The occurrence itself is appended to the
// deferred spool segment and applied by learning/apply_events at the next flush.
// Same row shape as the `errors` rows of learning/apply_events (id, occurrences, pattern,
// tool, category, ..., direct, similar). The two `direct` / `similar` subqueries are textually
// identical to apply_events' — change one, mirror the other.
// No row when the pattern is not in the graph (then the caller takes the write path).
// Params: ns, id.
MATCH (e:ErrorPattern {ns: $ns, id: $id})
  // What kgmem already knows: fixes of this error, and fixes of its SIMILAR_TO neighbours.
  CALL (e) {
    OPTIONAL MATCH (e)-[r:RESOLVED_BY]->(f:Fix)
    RETURN collect(CASE WHEN f IS NULL THEN null ELSE
      {fix_id: f.id, description: f.description, source: r.source, confidence: r.confidence,
       successes: r.successes, failures: r.failures, last_used: r.last_used} END) AS direct
  }
  CALL (e) {
    // A contradicted link (a fix it lent failed here: see apply_events' outcomes) lends nothing more.
    OPTIONAL MATCH (e)-[s:SIMILAR_TO]-(n:ErrorPattern)-[r:RESOLVED_BY]->(f:Fix)
    WHERE n <> e AND coalesce(s.contradicted, 0) <= coalesce(s.confirmed, 0)
    RETURN collect(CASE WHEN f IS NULL THEN null ELSE
      {fix_id: f.id, description: f.description, source: r.source, confidence: r.confidence,
       successes: r.successes, failures: r.failures, similarity: s.score, via: n.id} END) AS similar
  }
RETURN e.id AS id, e.occurrences AS occurrences, coalesce(e.vector_pending, false) AS vector_pending,
       e.pattern AS pattern, e.signature AS signature, e.keys AS keys, e.tool AS tool, e.category AS category,
       e.template AS template, direct, similar

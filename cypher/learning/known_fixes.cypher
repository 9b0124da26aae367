// What kgmem knows about one error pattern, read without writing: the read half of a
// *deferred* repeat (kgmem/learning/deferred.py). The occurrence itself is appended to the
// deferred spool segment and applied by learning/apply_events at the next flush.
// Same row shape as the `errors` rows of learning/apply_events (id, occurrences, pattern,
// tool, category, ..., direct, similar). The two `direct` / `similar` subqueries are the
// fragments apply_events includes too (cypher/learning/fragments/), identical by construction.
// No row when the pattern is not in the graph (then the caller takes the write path).
// Params: ns, id.
MATCH (e:ErrorPattern {ns: $ns, id: $id})
  // What kgmem already knows: fixes of this error, and fixes of its SIMILAR_TO neighbours.
  // @include learning/fragments/known_fix_direct
  // @include learning/fragments/known_fix_similar
RETURN e.id AS id, e.occurrences AS occurrences, coalesce(e.vector_pending, false) AS vector_pending,
       e.pattern AS pattern, e.signature AS signature, e.keys AS keys, e.tool AS tool, e.category AS category,
       e.template AS template, direct, similar

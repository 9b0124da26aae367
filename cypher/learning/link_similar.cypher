// After the vectors of new patterns/fixes are in Chroma: link SIMILAR_TO neighbours
// (undirected MERGE: one edge per pair whatever the order), clear vector_pending, and
// return the fixes of the neighbours of $ids (what a new error can already borrow).
// Params: ns, now, links: [{a, b, score, identity}], error_ids, fix_ids, ids.
CALL () {
  UNWIND $links AS l
  MATCH (a:ErrorPattern {ns: $ns, id: l.a})
  MATCH (b:ErrorPattern {ns: $ns, id: l.b})
  // ON CREATE only: re-linking a pair (a re-index) never re-scores it nor clears the
  // contradicted / confirmed evidence its fix outcomes left (apply_events). `identity` (the two
  // are provably one error: kgmem/learning/identity.py) is set once too; a link made before it was
  // recorded gets it on re-linking.
  MERGE (a)-[s:SIMILAR_TO]-(b)
    ON CREATE SET s.score = l.score, s.identity = l.identity, s.created_at = $now
    ON MATCH SET s.identity = coalesce(s.identity, l.identity)
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
// The fixes of its neighbours, as apply_events and known_fixes read them (one fragment).
// @include learning/fragments/known_fix_similar
RETURN id, similar

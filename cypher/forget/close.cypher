// What erasing some items takes with it: the fixes only those error patterns had, the entities only
// that knowledge was about (their names came from it), and a user correction's knowledge item when
// its fix goes (a correction stores its text as both). Params: ns, knowledge, errors, fixes.
CALL () {
  UNWIND $errors AS eid
  MATCH (:ErrorPattern {ns: $ns, id: eid})-[:RESOLVED_BY]->(f:Fix)
  WHERE NOT EXISTS { MATCH (o:ErrorPattern)-[:RESOLVED_BY]->(f) WHERE NOT o.id IN $errors }
  RETURN collect(DISTINCT f.id) AS fixes
}
CALL () {
  UNWIND $knowledge AS kid
  MATCH (:Knowledge {ns: $ns, id: kid})-[:ABOUT]->(e:Entity)
  WHERE NOT EXISTS { MATCH (o:Knowledge)-[:ABOUT]->(e) WHERE NOT o.id IN $knowledge }
  RETURN collect(DISTINCT e.id) AS entities
}
CALL (fixes) {
  UNWIND fixes + $fixes AS fid
  MATCH (f:Fix {ns: $ns, id: fid}) WHERE f.source = 'user'
  MATCH (k:Knowledge {ns: $ns, type: 'correction'}) WHERE k.content = f.description
  RETURN collect(DISTINCT k.id) AS corrections
}
RETURN fixes, entities, corrections

// forget entity=: everything about one named entity or person. The entity nodes of that name and
// their triples, the knowledge about them, and every memory that mentions the name: through the
// concept graph (MENTIONS of its concepts) and through the full-text index (a phrase query, each
// hit checked to contain the name, so a memory the concept extractor missed is found too).
// Params: ns, entity_ids, concept_ids, phrase (a Lucene phrase query, or null: the entity alone),
// needle (lower-cased name).
CALL () {
  UNWIND $entity_ids AS eid
  MATCH (e:Entity {ns: $ns, id: eid})
  RETURN collect(e.id) AS entities
}
CALL () {
  UNWIND $concept_ids AS cid
  MATCH (c:Concept {ns: $ns, id: cid})
  RETURN collect(c.id) AS concepts
}
CALL (concepts) {
  UNWIND concepts AS cid
  MATCH (c:Concept {ns: $ns, id: cid})<-[:MENTIONS]-(m)
  RETURN collect(DISTINCT {label: head(labels(m)), id: m.id}) AS mentioned
}
CALL (entities) {
  UNWIND entities AS eid
  MATCH (:Entity {ns: $ns, id: eid})<-[:ABOUT]-(k:Knowledge)
  RETURN collect(DISTINCT {label: 'Knowledge', id: k.id}) AS about
}
CALL () {
  WITH $phrase AS phrase WHERE phrase IS NOT NULL
  CALL db.index.fulltext.queryNodes('kgmem_fulltext', phrase) YIELD node
  WITH node WHERE node.ns = $ns
    AND any(p IN [node.text, node.content, node.pattern, node.description, node.name, node.example, node.signature]
            WHERE p IS NOT NULL AND toLower(toString(p)) CONTAINS $needle)
  RETURN collect(DISTINCT {label: head(labels(node)), id: node.id}) AS matched
}
RETURN entities, concepts, mentioned + about + matched AS items

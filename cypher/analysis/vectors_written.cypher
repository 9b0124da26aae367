// Chroma now holds these knowledge items' and entities' vectors. Params: ns, knowledge_ids, entity_ids.
CALL () {
  UNWIND $knowledge_ids AS id
  MATCH (k:Knowledge {ns: $ns, id: id})
  SET k.vector_pending = false
}
CALL () {
  UNWIND $entity_ids AS id
  MATCH (e:Entity {ns: $ns, id: id})
  SET e.vector_pending = false
}
RETURN size($knowledge_ids) + size($entity_ids) AS written

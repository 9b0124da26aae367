// Chroma now holds these knowledge items' and entities' vectors; and which of them a forget tombstoned
// meanwhile (the writer deletes those vectors: kgmem.tombstones.drop_forgotten_op).
// Params: ns, knowledge_ids, entity_ids.
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
CALL () {
  UNWIND $knowledge_ids + $entity_ids AS id
  MATCH (t:KgmemTombstone {ns: $ns, id: id})
  RETURN collect(t.id) AS gone
}
RETURN size($knowledge_ids) + size($entity_ids) AS written, gone

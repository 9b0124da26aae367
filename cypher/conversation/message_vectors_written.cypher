// Chroma now holds these messages' vectors; and which of them a forget tombstoned meanwhile (the writer
// deletes those vectors: kgmem.tombstones.drop_forgotten_op). Index: kgmem_tombstone_key.
// Params: ns, ids.
CALL () {
  UNWIND $ids AS id
  MATCH (m:Message {ns: $ns, id: id})
  SET m.vector_pending = false
}
CALL () {
  UNWIND $ids AS id
  MATCH (t:KgmemTombstone {ns: $ns, id: id})
  RETURN collect(t.id) AS gone
}
RETURN gone

// The check where events enter (kgmem.tombstones.screened_op): which of these ids are tombstoned, and
// since when, and whether the namespace has any entity-name tombstone at all (a client that knew it
// had none did not send its texts' name hashes: told otherwise, it sends them). Index kgmem_tombstone_label
// (cypher/schema.cypher). Params: ns, ids.
CALL () {
  UNWIND $ids AS id
  MATCH (t:KgmemTombstone {ns: $ns, id: id})
  RETURN collect({id: t.id, at_ms: t.at_ms}) AS gone
}
RETURN gone, EXISTS { MATCH (n:KgmemTombstone {ns: $ns, label: 'entity_name'}) } AS names

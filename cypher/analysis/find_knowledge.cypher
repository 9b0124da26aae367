// Knowledge items by exact normalised text or by id (dedup candidates from Chroma), one round trip.
// Params: ns, norms (list of normalised texts), ids (list of ids).
CALL () {
  UNWIND $norms AS norm
  MATCH (k:Knowledge {ns: $ns, norm: norm})
  RETURN k
  UNION
  UNWIND $ids AS id
  MATCH (k:Knowledge {ns: $ns, id: id})
  RETURN k
}
RETURN k.id AS id, k.norm AS norm, k.content AS content, k.type AS type, k.confidence AS confidence,
       k.is_manual AS is_manual, k.is_active AS is_active, k.source_sessions AS source_sessions,
       k.subject AS subject, k.predicate AS predicate, k.object AS object,
       k.valid_from AS valid_from, k.valid_until AS valid_until

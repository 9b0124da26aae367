// Knowledge items by exact normalised text or by id (dedup candidates from Chroma), one round trip.
// Each with its successors: the items of other text that replaced it (SUPERSEDED_BY, up to 50 links
// on), which a restatement of a superseded value supersedes in turn (kgmem.analysis.store).
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
       k.valid_from AS valid_from, k.valid_until AS valid_until,
       CASE WHEN k.valid_until IS NULL THEN [] ELSE COLLECT {
         MATCH (k)-[:SUPERSEDED_BY*1..50]->(x:Knowledge)
         WHERE NOT coalesce(x.norm = k.norm, false)
         RETURN DISTINCT x {.id, .norm, .content, .type, .confidence, .is_manual, .is_active, .source_sessions,
                            .subject, .predicate, .object, .valid_from, .valid_until} AS x
       } END AS successors

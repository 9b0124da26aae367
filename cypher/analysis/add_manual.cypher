// A knowledge item stated by a person (CLI / API): confidence 1.0, never decayed, penalised or
// superseded; valid from when it is added.
// An existing item with the same normalised text (params: id of it, or a new id) is promoted.
// Params: ns, id, type, content, norm, now, concepts (concept rows of content, or null).
MERGE (k:Knowledge {ns: $ns, id: $id})
  ON CREATE SET k.type = $type, k.content = $content, k.norm = $norm, k.source = 'manual',
                k.times_seen = 1, k.source_sessions = [], k.created_at = $now, k.vector_pending = true,
                k.valid_from = $now, k.recorded_at = $now
SET k.is_manual = true, k.is_active = true, k.confidence = 1.0, k.updated_at = $now, k.ns_key = $ns_key
WITH k, k AS mem, $concepts AS concepts
// @include concepts/fragments/link_mentions
WITH k
CALL (k) {
  MATCH (k)-[:ABOUT]->(:Entity)-[r:RELATES_TO {knowledge_id: k.id}]->(:Entity)
  SET r.confidence = k.confidence, r.updated_at = $now
}
RETURN k.id AS id, k.created_at = $now AS created, k.vector_pending AS vector_pending, k.type AS type,
       k.content AS content, k.source AS source

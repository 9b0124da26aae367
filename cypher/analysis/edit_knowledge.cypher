// Change an item's text (its id stays). Params: ns, id, content, norm, now, concepts (of the new
// text, or null).
MATCH (k:Knowledge {ns: $ns, id: $id})
SET k.content = $content, k.norm = $norm, k.updated_at = $now, k.edited_at = $now, k.vector_pending = true
WITH k, k AS mem, $concepts AS concepts
// @include concepts/fragments/link_mentions
WITH k
CALL (k) {
  MATCH (k)-[:ABOUT]->(:Entity)-[r:RELATES_TO {knowledge_id: k.id}]->(:Entity)
  SET r.fact = k.content, r.updated_at = $now
}
RETURN k.id AS id, k.type AS type, k.content AS content, k.source AS source, k.is_active AS is_active

// Soft-remove or reset an item. Params: ns, id, now, is_active (null = unchanged),
// confidence (null = unchanged), is_manual (null = unchanged), concepts (the item's MENTIONS from
// now on: [] when it is removed — a removed item counts in no Concept's df —, its content's
// concepts when it is made active again; null = unchanged).
// Removal keeps the node (history, CONTRADICTS links) and its vector: a removed item still
// matches in dedup, so it is not re-learnt from a paraphrase.
MATCH (k:Knowledge {ns: $ns, id: $id})
SET k.is_active = coalesce($is_active, k.is_active),
    k.confidence = coalesce($confidence, k.confidence),
    k.is_manual = coalesce($is_manual, k.is_manual),
    k.updated_at = $now
WITH k, k AS mem, $concepts AS concepts
// @include concepts/fragments/link_mentions
WITH k
CALL (k) {
  MATCH (k)-[:ABOUT]->(:Entity)-[r:RELATES_TO {knowledge_id: k.id}]->(:Entity)
  SET r.confidence = k.confidence, r.updated_at = $now
}
RETURN k.id AS id, k.type AS type, k.content AS content, k.source AS source, k.is_active AS is_active,
       k.confidence AS confidence, k.is_manual AS is_manual

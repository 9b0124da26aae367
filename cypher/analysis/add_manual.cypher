// A knowledge item stated by a person (CLI / API): confidence 1.0, never decayed, penalised or
// superseded by what kgmem extracts; valid from when it is added.
// The store judged it first (kgmem.analysis.store.KnowledgeStore.judge_manual_op): $id is the stored item
// it restates (promoted) or its own new id; $contradicts the ids of the stored items it contradicts.
// Each of those is superseded by it (valid_until = its valid_from, SUPERSEDED_BY old -> new, CONTRADICTS
// new -> old) and, unless manual, loses $penalty confidence (never below $floor) — once: a repeat that
// finds the CONTRADICTS edge already there does not penalise again.
// Params: ns, id, type, content, norm, now, concepts (concept rows of content, or null), contradicts,
//   penalty, floor.
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
CALL (k) {
  UNWIND $contradicts AS old_id
  MATCH (o:Knowledge {ns: $ns, id: old_id})
  WHERE o <> k
  WITH k AS n, o, o.confidence AS before, NOT EXISTS { (k)-[:CONTRADICTS]->(o) } AS fresh
  MERGE (n)-[r:CONTRADICTS]->(o)
    ON CREATE SET r.created_at = $now, r.sessions = []
  SET r.updated_at = $now
  // @include analysis/fragments/supersede
  SET o.confidence = CASE WHEN coalesce(o.is_manual, false) OR NOT fresh THEN o.confidence
                          WHEN o.confidence - $penalty < $floor THEN $floor
                          ELSE o.confidence - $penalty END,
      o.updated_at = $now
  WITH o, before
  CALL (o) {
    MATCH (o)-[:ABOUT]->(:Entity)-[r:RELATES_TO {knowledge_id: o.id}]->(:Entity)
    SET r.confidence = o.confidence, r.updated_at = $now
  }
  RETURN collect({id: o.id, old: before, new: o.confidence, is_manual: coalesce(o.is_manual, false)}) AS contradicted
}
RETURN k.id AS id, k.created_at = $now AS created, k.vector_pending AS vector_pending, k.type AS type,
       k.content AS content, k.source AS source, contradicted

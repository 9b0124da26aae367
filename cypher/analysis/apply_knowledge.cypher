// One analysis batch, in one transaction (kgmem.analysis.store.KnowledgeStore.apply).
// Params: ns, now, said_at, session_id, session, marks, max_auto, factor, penalty, floor, initial,
//   rows: [{id, insert, type, content, norm, source, subject, predicate, object,
//           extracted_confidence, seen, triple, concepts}] — one row per knowledge id, inserts first;
//     concepts = the concept rows of a new item's content and triple (kgmem.concepts), null for
//     an item already stored (its MENTIONS stay);
//     seen = how many extracted items landed on this id (0 for an item only being contradicted),
//     triple = null or {subject_id, subject, object_id, object, predicate};
//   contradictions: [{new_id, old_id}] (old_id = the statement made earlier: the store orders each
//     pair by time, so an older statement ingested late is the one superseded),
//   entity_ids: ids of the triples' entities.
// Time (docs/knowledge-over-time.md): a new item is valid from $said_at (when it was said: its turn's or
// event's ts; null = $now) and recorded at $now. A contradicted item that is not manual is superseded by
// the one contradicting it: valid_until = the newer statement's valid_from (the earliest, if several) and a
// SUPERSEDED_BY edge old -> new. Nothing is deleted.
// Returns one row: results (per knowledge id: created, old/new confidence, ...) and the
// entities whose vectors still have to be written to Chroma.
// Confidence maths = kgmem/analysis/confidence.py: one boost per session that re-observes an
// item (a chatty session alone cannot push it to the cap), then one penalty per contradicting
// item — unless that item already contradicted it in this session (CONTRADICTS.sessions), so a
// window and the session learner restating the same correction do not penalise twice.
// Manual items keep their 1.0. Predicates are stored as data on RELATES_TO, never as a type.
// $marks (kgmem ingest, usually []): ingest keys of these items, written in this transaction; if
// one is already stored (a re-run, a retry whose commit went through) nothing is written, no rows.
WITH 1 AS one WHERE NOT EXISTS { MATCH (done:IngestedEvent {ns: $ns}) WHERE done.id IN $marks }
MERGE (s:Session {ns: $ns, id: $session_id})
  ON CREATE SET s.key = $session, s.started_at = $now, s.created_at = $now, s.turns = 0
SET s.updated_at = $now
// read after the session's lock is held: a session a forget has marked takes no knowledge
// (cypher/forget/mark_session.cypher)
WITH s WHERE s.forgetting IS NULL
UNWIND $rows AS row
// A row for an existing item whose node vanished since the plan was made is dropped, not re-created empty.
WITH s, row WHERE row.insert OR EXISTS { MATCH (:Knowledge {ns: $ns, id: row.id}) }
CALL (s, row) {
  MERGE (k:Knowledge {ns: $ns, id: row.id})
    ON CREATE SET k.type = row.type, k.content = row.content, k.norm = row.norm, k.source = row.source,
                  k.subject = row.subject, k.predicate = row.predicate, k.object = row.object,
                  k.extracted_confidence = row.extracted_confidence,
                  k.confidence = $initial, k.times_seen = 0, k.source_sessions = [],
                  k.is_manual = false, k.is_active = true, k.created_at = $now, k.vector_pending = true,
                  k.valid_from = coalesce($said_at, $now), k.recorded_at = $now
  WITH s, row, k, k.created_at = $now AS created, k.confidence AS old
  WITH s, row, k, created, old,
       size([c IN $contradictions WHERE c.old_id = row.id AND NOT EXISTS {
         MATCH (:Knowledge {ns: $ns, id: c.new_id})-[r:CONTRADICTS]->(k) WHERE $session IN r.sessions
       }]) AS penalties,
       created OR row.seen = 0 OR $session IN coalesce(k.source_sessions, []) AS no_boost
  WITH s, row, k, created, old, penalties,
       CASE WHEN k.is_manual OR no_boost THEN old
            WHEN old + $factor * ($max_auto - old) > $max_auto THEN $max_auto
            ELSE old + $factor * ($max_auto - old) END AS boosted
  WITH s, row, k, created, old, penalties,
       CASE WHEN k.is_manual OR penalties = 0 THEN boosted
            WHEN boosted - penalties * $penalty < $floor THEN $floor
            ELSE boosted - penalties * $penalty END AS new
  SET k.confidence = new,
      k.updated_at = $now, k.ns_key = $ns_key,
      k.times_seen = coalesce(k.times_seen, 0) + row.seen,
      k.source_sessions = CASE WHEN row.seen > 0 AND NOT $session IN coalesce(k.source_sessions, [])
                               THEN coalesce(k.source_sessions, []) + $session
                               ELSE coalesce(k.source_sessions, []) END,
      k.last_seen_at = CASE WHEN row.seen > 0 THEN $now ELSE k.last_seen_at END,
      k.subject = coalesce(k.subject, row.triple.subject),
      k.predicate = coalesce(k.predicate, row.triple.predicate),
      k.object = coalesce(k.object, row.triple.object)
  FOREACH (_ IN CASE WHEN row.seen > 0 THEN [1] ELSE [] END | MERGE (k)-[:FROM_SESSION]->(s))
  WITH row, k, created, old, new, penalties, k AS mem, row.concepts AS concepts
  // @include concepts/fragments/link_mentions
  WITH row, k, created, old, new, penalties
  CALL (row, k) {
    WITH row, k WHERE row.triple IS NOT NULL
    MERGE (a:Entity {ns: $ns, id: row.triple.subject_id})
      ON CREATE SET a.name = row.triple.subject, a.kind = 'concept', a.created_at = $now, a.vector_pending = true
    SET a.updated_at = $now, a.ns_key = $ns_key
    MERGE (b:Entity {ns: $ns, id: row.triple.object_id})
      ON CREATE SET b.name = row.triple.object, b.kind = 'concept', b.created_at = $now, b.vector_pending = true
    SET b.updated_at = $now, b.ns_key = $ns_key
    MERGE (k)-[:ABOUT]->(a)
    MERGE (k)-[:ABOUT]->(b)
    MERGE (a)-[r:RELATES_TO {knowledge_id: k.id}]->(b)
      ON CREATE SET r.created_at = $now, r.predicate = row.triple.predicate, r.fact = k.content
  }
  // Every triple of the item carries the item's current confidence.
  CALL (k) {
    MATCH (k)-[:ABOUT]->(:Entity)-[r:RELATES_TO {knowledge_id: k.id}]->(:Entity)
    SET r.confidence = k.confidence, r.updated_at = $now
  }
  RETURN {id: k.id, created: created, old: old, new: new, is_manual: k.is_manual, penalties: penalties,
          times_seen: k.times_seen, vector_pending: coalesce(k.vector_pending, false)} AS result
}
// Grouped by s: when the ingest-mark guard stopped the statement there is no s, so no row comes
// back and nothing below runs (a plain collect() would still return one row and write the marks).
WITH s, collect(result) AS results
CALL () {
  UNWIND $contradictions AS c
  MATCH (n:Knowledge {ns: $ns, id: c.new_id})
  MATCH (o:Knowledge {ns: $ns, id: c.old_id})
  MERGE (n)-[r:CONTRADICTS]->(o)
    ON CREATE SET r.created_at = $now, r.sessions = []
  SET r.sessions = CASE WHEN $session IN r.sessions THEN r.sessions ELSE r.sessions + $session END,
      r.updated_at = $now
  WITH n, o WHERE NOT coalesce(o.is_manual, false)
  // @include analysis/fragments/supersede
}
CALL () {
  UNWIND $marks AS mark
  MERGE (m:IngestedEvent {ns: $ns, id: mark})
    ON CREATE SET m.type = 'knowledge', m.source = 'ingest', m.created_at = $now
  SET m.updated_at = $now
}
CALL () {
  UNWIND $entity_ids AS id
  MATCH (e:Entity {ns: $ns, id: id})
  WHERE e.vector_pending
  RETURN collect({id: e.id, name: e.name}) AS pending_entities
}
RETURN results, pending_entities

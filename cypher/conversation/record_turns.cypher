// A batch of conversation turns, in one transaction (kgmem.conversation.TurnStore.record).
// Params: ns, now, rows: [{id, session_id, session, role, text, ref, ts}] in conversation order;
//   links: [{id, concepts}] one per message of the batch whose concepts were extracted (the last row
//   of a message repeated in the batch wins), concepts = its concept rows (kgmem.concepts.concept_rows).
// Each row runs in its own CALL so the session's tail pointer written by one row is
// seen by the next: that is how the NEXT chain continues across batches.
// A message that already exists (same deterministic id) is not re-linked, so re-running
// a batch adds nothing; a changed text is updated and its vector marked pending again.
UNWIND $rows AS row
// A forgotten turn (a KgmemTombstone on its id, docs/forgetting.md) is not written again: a retried
// ingest with the same ref, a spooled or queued copy, another process's writer.
WITH row WHERE NOT EXISTS { MATCH (:KgmemTombstone {ns: $ns, id: row.id}) }
CALL (row) {
  MERGE (s:Session {ns: $ns, id: row.session_id})
    ON CREATE SET s.key = row.session, s.started_at = $now, s.created_at = $now, s.turns = 0
  SET s.updated_at = $now
  // read after the session's lock is held: a session a forget has marked takes no turn from a
  // transaction that straddled the mark (cypher/forget/mark_session.cypher)
  WITH row, s WHERE s.forgetting IS NULL
  MERGE (m:Message {ns: $ns, id: row.id})
    ON CREATE SET m.created_at = $now, m.role = row.role, m.text = row.text, m.ref = row.ref,
                  m.ts = coalesce(row.ts, $now), m.session = row.session, m.vector_pending = true
  SET m.updated_at = $now, m.ns_key = $ns_key,
      m.vector_pending = (m.vector_pending OR m.text <> row.text),
      m.text = row.text, m.role = row.role
  WITH s, m
  OPTIONAL MATCH (m)-[linked:PART_OF]->(s)
  WITH s, m, linked IS NULL AS is_new
  CALL (s, m, is_new) {
    WITH s, m WHERE is_new
    OPTIONAL MATCH (prev:Message {ns: $ns, id: s.tail})
    SET m.seq = coalesce(s.turns, 0), s.turns = coalesce(s.turns, 0) + 1, s.tail = m.id
    MERGE (m)-[:PART_OF]->(s)
    FOREACH (p IN CASE WHEN prev IS NULL THEN [] ELSE [prev] END | MERGE (p)-[:NEXT]->(m))
  }
  RETURN m.id AS id, m.vector_pending AS vector_pending, m.seq AS seq, m.ts AS ts, is_new AS created
}
WITH collect({id: id, vector_pending: vector_pending, seq: seq, ts: ts, created: created}) AS written
// The concepts after every message of the batch exists: each Concept is written once per batch.
CALL () {
  UNWIND $links AS link
  MATCH (mem:Message {ns: $ns, id: link.id})
  RETURN collect({mem: mem, concepts: link.concepts}) AS mentions
}
// @include concepts/fragments/link_mentions_batch
UNWIND written AS w
RETURN w.id AS id, w.vector_pending AS vector_pending, w.seq AS seq, w.ts AS ts, w.created AS created

// Remember ingested non-idempotent events so re-running an ingest does not count them twice.
// Params: ns, now, events [{id, type, source}].
UNWIND $events AS ev
MERGE (e:IngestedEvent {ns: $ns, id: ev.id})
  ON CREATE SET e.type = ev.type, e.source = ev.source, e.created_at = $now
SET e.updated_at = $now

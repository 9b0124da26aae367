// Which of these non-idempotent events (tool results) were already ingested. Params: ns, ids.
UNWIND $ids AS id
MATCH (e:IngestedEvent {ns: $ns, id: id})
RETURN e.id AS id

// name: contradictions
// description: Knowledge that contradicted older knowledge, and what replaced what.
// param: ns str — namespace
// param: limit int = 100 [1..100000] — how many contradictions to return
// column: newer — the newer item's content
// column: newer_confidence — its confidence now
// column: newer_created — when it was learned
// column: older — the item it contradicts
// column: older_confidence — the older item's confidence now (penalised)
// column: older_active — whether the older item is still active
// column: type — knowledge type of the newer item
// column: session — session the newer item came from, if known
MATCH (n:Knowledge {ns: $ns})-[:CONTRADICTS]->(o:Knowledge)
OPTIONAL MATCH (n)-[:FROM_SESSION]->(s:Session)
WITH n, o, min(s.key) AS session
RETURN n.content AS newer, n.confidence AS newer_confidence, n.created_at AS newer_created,
       o.content AS older, o.confidence AS older_confidence, coalesce(o.is_active, true) AS older_active,
       n.type AS type, session
ORDER BY newer_created DESC
LIMIT toInteger($limit)

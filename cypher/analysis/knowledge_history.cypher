// One knowledge item's chain: every item linked to it by SUPERSEDED_BY (either way, up to 50 links),
// itself included, oldest statement first. Params: ns, id. No row: no such item.
MATCH (k:Knowledge {ns: $ns, id: $id})
MATCH (k)-[:SUPERSEDED_BY*0..50]-(x:Knowledge)
WITH DISTINCT x
OPTIONAL MATCH (x)-[:SUPERSEDED_BY]->(newer:Knowledge)
WITH x, collect(newer.id) AS superseded_by
RETURN x.id AS id, x.type AS type, x.content AS content, x.confidence AS confidence, x.source AS source,
       x.is_manual AS is_manual, x.is_active AS is_active, x.subject AS subject, x.predicate AS predicate,
       x.object AS object, x.valid_from AS valid_from, x.valid_until AS valid_until,
       x.recorded_at AS recorded_at, x.superseded_at AS superseded_at, superseded_by
ORDER BY x.valid_from, x.recorded_at, x.id

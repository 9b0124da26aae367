// One knowledge item with its provenance and contradiction links. Params: ns, id.
MATCH (k:Knowledge {ns: $ns, id: $id})
OPTIONAL MATCH (k)-[:FROM_SESSION]->(s:Session)
WITH k, collect(DISTINCT s.key) AS sessions
OPTIONAL MATCH (k)-[:CONTRADICTS]->(old:Knowledge)
WITH k, sessions, collect(DISTINCT old.id) AS contradicts
OPTIONAL MATCH (newer:Knowledge)-[:CONTRADICTS]->(k)
RETURN k.id AS id, k.type AS type, k.content AS content, k.norm AS norm, k.confidence AS confidence,
       k.times_seen AS times_seen, k.source_sessions AS source_sessions, k.source AS source,
       k.is_manual AS is_manual, k.is_active AS is_active, k.subject AS subject,
       k.predicate AS predicate, k.object AS object, k.created_at AS created_at,
       k.updated_at AS updated_at, k.valid_from AS valid_from, k.valid_until AS valid_until,
       k.recorded_at AS recorded_at, sessions, contradicts, collect(DISTINCT newer.id) AS contradicted_by

// Schema 10 migration, after backfill_knowledge_time: an item another one already CONTRADICTS (and that
// is not manual) is superseded by it when it was stated no later. Idempotent (MERGE, earliest valid_until).
MATCH (n:Knowledge)-[:CONTRADICTS]->(o:Knowledge)
WHERE n.ns = o.ns AND NOT coalesce(o.is_manual, false) AND NOT (o)-[:SUPERSEDED_BY]->(n)
  AND o.valid_from <= n.valid_from
CALL (n, o) {
  MERGE (o)-[sup:SUPERSEDED_BY]->(n)
    ON CREATE SET sup.created_at = toString(datetime())
  SET sup.at = n.valid_from,
      o.valid_until = CASE WHEN o.valid_until IS NULL OR o.valid_until > n.valid_from THEN n.valid_from
                           ELSE o.valid_until END,
      o.superseded_at = coalesce(o.superseded_at, toString(datetime()))
} IN TRANSACTIONS OF 2000 ROWS

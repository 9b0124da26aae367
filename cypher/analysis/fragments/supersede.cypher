  // Fragment (needs `o`: the older Knowledge item, `n`: the newer one it is superseded by): a
  // SUPERSEDED_BY edge o -> n at n's valid_from; o stops being valid then (or earlier, if it already
  // had), and keeps the time it was first superseded. Idempotent: re-running changes nothing.
  MERGE (o)-[sup:SUPERSEDED_BY]->(n)
    ON CREATE SET sup.created_at = $now
  SET sup.at = n.valid_from,
      o.valid_until = CASE WHEN o.valid_until IS NULL OR o.valid_until > n.valid_from THEN n.valid_from
                           ELSE o.valid_until END,
      o.superseded_at = coalesce(o.superseded_at, $now)

// Knowledge items of a namespace, most trusted first. Params: ns, type (null = all),
// min_confidence, include_inactive, limit.
MATCH (k:Knowledge {ns: $ns})
WHERE ($type IS NULL OR k.type = $type)
  AND k.confidence >= $min_confidence
  AND ($include_inactive OR k.is_active)
RETURN k.id AS id, k.type AS type, k.content AS content, k.confidence AS confidence,
       k.times_seen AS times_seen, k.source_sessions AS source_sessions, k.source AS source,
       k.is_manual AS is_manual, k.is_active AS is_active, k.subject AS subject,
       k.predicate AS predicate, k.object AS object, k.created_at AS created_at, k.updated_at AS updated_at,
       k.valid_from AS valid_from, k.valid_until AS valid_until
ORDER BY k.is_active DESC, k.confidence DESC, k.times_seen DESC, k.created_at
LIMIT $limit

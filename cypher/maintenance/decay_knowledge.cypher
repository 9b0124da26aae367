// `kgmem decay`: staleness decay of knowledge confidence, as a batch job.
// Params: ns, now (ISO-8601), stale_days, half_life_days, floor.
// An item not seen for stale_days starts decaying: confidence × 0.5^(days / half_life_days),
// counted from the later of (last seen + stale_days) and the previous decay run, so running the
// job daily or monthly ends at the same value. Manual items are never decayed; an item already
// below the floor is left alone (never raised).
MATCH (k:Knowledge {ns: $ns})
WHERE NOT coalesce(k.is_manual, false) AND k.confidence IS NOT NULL
WITH k, datetime(coalesce(k.last_seen_at, k.last_seen, k.created_at)) + duration({days: $stale_days}) AS stale_from
WHERE stale_from < datetime($now)
WITH k, CASE WHEN k.decayed_at IS NOT NULL AND datetime(k.decayed_at) > stale_from
             THEN datetime(k.decayed_at) ELSE stale_from END AS since
WITH k, duration.inSeconds(since, datetime($now)).seconds / 86400.0 AS days
WHERE days > 0
WITH k, k.confidence AS old, k.confidence * 0.5 ^ (days / $half_life_days) AS decayed
WITH k, old, CASE WHEN old <= $floor THEN old WHEN decayed < $floor THEN $floor ELSE decayed END AS new
SET k.confidence = new, k.decayed_at = $now
RETURN count(k) AS decayed, coalesce(sum(old - new), 0.0) AS total_drop

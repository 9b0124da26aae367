// Tombstones past their retention go (a bounded batch per forget call). Params: now_ms, limit.
MATCH (t:KgmemTombstone)
WHERE t.expires_ms < $now_ms
WITH t LIMIT $limit
DELETE t
RETURN count(*) AS pruned

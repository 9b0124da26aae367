// name: knowledge_by_type
// description: Knowledge items per type and confidence band (a histogram of confidence).
// param: ns str — namespace
// param: include_inactive bool = false — also count suppressed (inactive) items
// column: band — confidence band, 0.1 wide ("0.5-0.6")
// column: type — fact / pattern / correction / preference
// column: items — knowledge items in the band
// column: manual — of which manual (confidence 1.0, never decayed)
// column: avg_times_seen — mean times seen
// chart: bar x=band y=items series=type
MATCH (k:Knowledge {ns: $ns})
WHERE $include_inactive OR coalesce(k.is_active, true)
WITH k, toInteger(floor(CASE WHEN k.confidence >= 1.0 THEN 9.0 ELSE k.confidence * 10 END)) AS b
WITH k, CASE WHEN b < 0 THEN 0 ELSE b END AS b
WITH toString(b / 10.0) + '-' + toString((b + 1) / 10.0) AS band, coalesce(k.type, 'fact') AS type,
     count(k) AS items, sum(CASE WHEN coalesce(k.is_manual, false) THEN 1 ELSE 0 END) AS manual,
     avg(coalesce(k.times_seen, 1)) AS avg_times_seen
RETURN band, type, items, manual, round(avg_times_seen, 2) AS avg_times_seen
ORDER BY band, type

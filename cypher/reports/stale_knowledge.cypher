// name: stale_knowledge
// description: Knowledge not seen for N days, with the confidence it decays to (manual items excluded).
// param: ns str — namespace
// param: days int = 30 [0..36500] — not seen for at least this many days
// param: half_life_days float = 90.0 [0.001..36500] — decay half-life applied by `kgmem decay`
// param: limit int = 100 [1..100000] — how many items to return
// column: content — the knowledge item
// column: type — fact / pattern / correction / preference
// column: confidence — confidence now
// column: last_seen — when it was last seen (or updated)
// column: age_days — days since then
// column: decays_to — confidence after 30 more days of decay
// column: active — whether it is active
// chart: hbar x=content y=age_days
MATCH (k:Knowledge {ns: $ns})
WHERE NOT coalesce(k.is_manual, false)
WITH k, coalesce(k.last_seen_at, k.last_seen, k.created_at) AS seen
WITH k, seen, duration.inSeconds(datetime(seen), datetime()).seconds / 86400.0 AS age
WHERE age >= $days
RETURN k.content AS content, k.type AS type, k.confidence AS confidence, seen AS last_seen,
       round(age, 1) AS age_days,
       round(k.confidence * 0.5 ^ (30.0 / $half_life_days), 3) AS decays_to,
       coalesce(k.is_active, true) AS active
ORDER BY age DESC
LIMIT toInteger($limit)

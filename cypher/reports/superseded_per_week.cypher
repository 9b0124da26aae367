// name: superseded_per_week
// description: Facts superseded per week (by when the newer statement was made), with examples.
// param: ns str — namespace
// param: weeks int = 52 [1..5200] — how many weeks back
// column: week — the week's Monday (UTC)
// column: superseded — knowledge items that stopped being valid that week
// column: examples — up to three changes, "old → new"
// chart: bar x=week y=superseded
// valid_until is the newer statement's time (docs/knowledge-over-time.md); one that is not a
// timestamp is skipped instead of failing the whole report.
WITH left(toString(datetime({timezone: 'UTC'}) - duration({days: 7 * $weeks})), 19) AS since
MATCH (o:Knowledge {ns: $ns})-[:SUPERSEDED_BY]->(n:Knowledge)
WHERE o.valid_until =~ '[0-9]{4}-[0-9]{2}-[0-9]{2}T.*' AND left(o.valid_until, 19) >= since
WITH o, n, toString(date.truncate('week', date(left(o.valid_until, 10)))) AS week
WITH week, collect(DISTINCT o) AS olds, collect(o.content + ' → ' + n.content) AS changes
RETURN week, size(olds) AS superseded, changes[..3] AS examples
ORDER BY week

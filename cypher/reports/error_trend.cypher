// name: error_trend
// description: Error events per day and tool over the last N days (trend lines).
// param: ns str — namespace
// param: days int = 30 [0..36500] — how many days back
// param: by str = tool {tool,category} — group by tool or by category
// column: day — calendar day (UTC)
// column: name — the tool (or category) name
// column: errors — error events that day
// column: patterns — distinct error patterns that day
// chart: line x=day y=errors series=name
// An event is an IN_SESSION edge's count, dated by the edge's last_seen; errors reported
// without a session are dated by the pattern's last_seen.
// Stored timestamps are compared as text (first 19 characters, UTC); one that is not a timestamp
// (written before kgmem validated them) is skipped instead of failing the whole report.
WITH left(toString(datetime({timezone: 'UTC'}) - duration({days: $days})), 19) AS since
MATCH (e:ErrorPattern {ns: $ns})
OPTIONAL MATCH (e)-[r:IN_SESSION]->(:Session)
WITH e, since, collect(r) AS edges
WITH e, since, CASE WHEN size(edges) = 0
             THEN [{seen: e.last_seen, n: e.occurrences}]
             ELSE [x IN edges | {seen: x.last_seen, n: x.count}] END AS events
UNWIND events AS ev
WITH e, ev, since, substring(ev.seen, 0, 10) AS day
WHERE ev.seen =~ '[0-9]{4}-[0-9]{2}-[0-9]{2}T.*' AND left(ev.seen, 19) >= since
WITH day, CASE $by WHEN 'category' THEN coalesce(e.category, 'general') ELSE e.tool END AS name,
     sum(ev.n) AS errors, count(DISTINCT e) AS patterns
RETURN day, name, errors, patterns
ORDER BY day, name

// name: error_trend
// description: Error events per day and tool over the last N days (trend lines).
// param: ns str — namespace
// param: days int = 30 — how many days back
// param: by str = tool {tool,category} — group by tool or by category
// column: day — calendar day (UTC)
// column: name — the tool (or category) name
// column: errors — error events that day
// column: patterns — distinct error patterns that day
// chart: line x=day y=errors series=name
// An event is an IN_SESSION edge's count, dated by the edge's last_seen; errors reported
// without a session are dated by the pattern's last_seen.
MATCH (e:ErrorPattern {ns: $ns})
WHERE datetime(e.last_seen) >= datetime() - duration({days: $days})
   OR EXISTS { (e)-[r:IN_SESSION]->() WHERE datetime(r.last_seen) >= datetime() - duration({days: $days}) }
OPTIONAL MATCH (e)-[r:IN_SESSION]->(:Session)
WITH e, collect(r) AS edges
WITH e, CASE WHEN size(edges) = 0
             THEN [{day: substring(e.last_seen, 0, 10), n: e.occurrences}]
             ELSE [x IN edges | {day: substring(x.last_seen, 0, 10), n: x.count}] END AS events
UNWIND events AS ev
WITH e, ev WHERE date(ev.day) >= date() - duration({days: $days})
WITH ev.day AS day, CASE $by WHEN 'category' THEN coalesce(e.category, 'general') ELSE e.tool END AS name,
     sum(ev.n) AS errors, count(DISTINCT e) AS patterns
RETURN day, name, errors, patterns
ORDER BY day, name

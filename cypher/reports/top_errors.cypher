// name: top_errors
// description: Most frequent error patterns by tool and category, with their recent trend.
// param: ns str — namespace
// param: limit int = 20 — how many patterns to return
// param: days int = 7 — trend window: events in the last N days vs the N days before
// param: tool str = * — only this tool (* = all)
// param: category str = * — only this category (* = all)
// column: tool — tool that raised the error
// column: category — error category (timeout, permission, provider_error, tool_error, general)
// column: pattern — normalised error message
// column: occurrences — times seen in total
// column: sessions — sessions it was seen in
// column: recent — events in the last `days` days (sessions active in the window)
// column: previous — events in the `days` days before that
// column: trend — rising / falling / steady / new / quiet
// column: first_seen — first occurrence (ISO-8601 UTC)
// column: last_seen — latest occurrence (ISO-8601 UTC)
// chart: hbar x=pattern y=occurrences
// Trend counts come from IN_SESSION edges (count per session, dated by the edge's last_seen):
// the graph keeps no per-event log, so an event is dated by its session's latest sighting.
MATCH (e:ErrorPattern {ns: $ns})
WHERE ($tool = '*' OR e.tool = $tool) AND ($category = '*' OR e.category = $category)
WITH e ORDER BY e.occurrences DESC, e.last_seen DESC LIMIT toInteger($limit)
WITH e, datetime() - duration({days: $days}) AS recent_from,
        datetime() - duration({days: 2 * $days}) AS previous_from
OPTIONAL MATCH (e)-[r:IN_SESSION]->(:Session)
WITH e, count(r) AS sessions,
     sum(CASE WHEN r IS NOT NULL AND datetime(r.last_seen) >= recent_from THEN r.count ELSE 0 END) AS recent,
     sum(CASE WHEN r IS NOT NULL AND previous_from <= datetime(r.last_seen) < recent_from
              THEN r.count ELSE 0 END) AS previous
RETURN e.tool AS tool, coalesce(e.category, 'general') AS category, e.pattern AS pattern,
       e.occurrences AS occurrences, sessions, recent, previous,
       CASE
         WHEN recent = 0 AND previous = 0 THEN 'quiet'
         WHEN previous = 0 THEN 'new'
         WHEN recent > previous * 1.2 THEN 'rising'
         WHEN recent < previous * 0.8 THEN 'falling'
         ELSE 'steady'
       END AS trend,
       e.first_seen AS first_seen, e.last_seen AS last_seen
ORDER BY occurrences DESC, last_seen DESC

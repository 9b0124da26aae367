// name: top_errors
// description: Most frequent error patterns by tool and category, with their recent trend.
// param: ns str — namespace
// param: limit int = 20 [1..100000] — how many patterns to return
// param: days int = 7 [1..36500] — trend window: events in the last N days vs the N days before
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
// Stored timestamps are compared as text (their first 19 characters, UTC): one that is not a
// timestamp at all (written before kgmem validated them) is skipped instead of failing the report.
// (Kept in the header: Neo4j Browser rejects a guide query with comment lines inside it.)
MATCH (e:ErrorPattern {ns: $ns})
WHERE ($tool = '*' OR e.tool = $tool) AND ($category = '*' OR e.category = $category)
WITH e ORDER BY e.occurrences DESC, e.last_seen DESC LIMIT toInteger($limit)
WITH e, left(toString(datetime({timezone: 'UTC'}) - duration({days: $days})), 19) AS recent_from,
        left(toString(datetime({timezone: 'UTC'}) - duration({days: 2 * $days})), 19) AS previous_from
OPTIONAL MATCH (e)-[r:IN_SESSION]->(:Session)
WITH e, r, recent_from, previous_from,
     CASE WHEN r.last_seen =~ '[0-9]{4}-[0-9]{2}-[0-9]{2}T.*' THEN left(r.last_seen, 19) END AS seen
WITH e, count(r) AS sessions,
     sum(CASE WHEN seen >= recent_from THEN r.count ELSE 0 END) AS recent,
     sum(CASE WHEN previous_from <= seen < recent_from THEN r.count ELSE 0 END) AS previous
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

// name: unresolved_errors
// description: Recurring errors without a fix at or above the confidence threshold.
// param: ns str — namespace
// param: min_occurrences int = 2 [0..] — only errors seen at least this often
// param: threshold float = 0.7 [0..1] — a fix this confident counts as a resolution (auto-apply threshold)
// param: limit int = 50 [1..100000] — how many errors to return
// column: tool — tool that raised the error
// column: category — error category
// column: pattern — normalised error message
// column: occurrences — times seen
// column: sessions — sessions it was seen in
// column: last_seen — latest occurrence
// column: fixes — fixes tried (any confidence)
// column: best_fix — the most confident fix so far, if any
// column: best_confidence — its confidence
// chart: hbar x=pattern y=occurrences
MATCH (e:ErrorPattern {ns: $ns})
WHERE e.occurrences >= $min_occurrences
  AND NOT EXISTS { (e)-[r:RESOLVED_BY]->(:Fix) WHERE r.confidence >= $threshold }
OPTIONAL MATCH (e)-[r:RESOLVED_BY]->(f:Fix)
WITH e, r, f ORDER BY r.confidence DESC
WITH e, count(f) AS fixes, head(collect(f.description)) AS best_fix, head(collect(r.confidence)) AS best_confidence
RETURN e.tool AS tool, coalesce(e.category, 'general') AS category, e.pattern AS pattern,
       e.occurrences AS occurrences, COUNT { (e)-[:IN_SESSION]->() } AS sessions, e.last_seen AS last_seen,
       fixes, best_fix, best_confidence
ORDER BY occurrences DESC, last_seen DESC
LIMIT toInteger($limit)

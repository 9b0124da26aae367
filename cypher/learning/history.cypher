// Most recently seen error patterns with their best fix. Params: ns, limit.
MATCH (e:ErrorPattern {ns: $ns})
WITH e ORDER BY e.last_seen DESC LIMIT $limit
OPTIONAL MATCH (e)-[r:RESOLVED_BY]->(f:Fix)
WITH e, r, f ORDER BY r.confidence DESC
WITH e, collect(CASE WHEN f IS NULL THEN null ELSE
       {description: f.description, confidence: r.confidence, source: r.source,
        successes: r.successes, failures: r.failures} END) AS fixes
RETURN e.id AS id, e.tool AS tool, e.category AS category, e.pattern AS pattern,
       e.occurrences AS occurrences, e.first_seen AS first_seen, e.last_seen AS last_seen,
       fixes[0] AS best_fix, size(fixes) AS fixes
ORDER BY last_seen DESC

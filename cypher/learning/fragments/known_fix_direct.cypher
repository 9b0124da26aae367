  // Fragment (needs e: ErrorPattern bound): the fixes of e itself, as `direct`.
  CALL (e) {
    OPTIONAL MATCH (e)-[r:RESOLVED_BY]->(f:Fix)
    RETURN collect(CASE WHEN f IS NULL THEN null ELSE
      {fix_id: f.id, description: f.description, source: r.source, confidence: r.confidence,
       successes: r.successes, failures: r.failures, last_used: r.last_used} END) AS direct
  }

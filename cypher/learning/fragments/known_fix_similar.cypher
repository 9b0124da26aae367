  // Fragment (needs e: ErrorPattern bound): the fixes of e's SIMILAR_TO neighbours, as `similar`.
  CALL (e) {
    // A contradicted link (a fix it lent failed here: see learning/apply_events' outcomes)
    // lends nothing more. retrieval/expand tests links with this same rule.
    OPTIONAL MATCH (e)-[s:SIMILAR_TO]-(n:ErrorPattern)-[r:RESOLVED_BY]->(f:Fix)
    WHERE n <> e AND coalesce(s.contradicted, 0) <= coalesce(s.confirmed, 0)
    RETURN collect(CASE WHEN f IS NULL THEN null ELSE
      {fix_id: f.id, description: f.description, source: r.source, confidence: r.confidence,
       successes: r.successes, failures: r.failures, similarity: s.score, via: n.id} END) AS similar
  }

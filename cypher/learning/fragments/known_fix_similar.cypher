  // Fragment (needs e: ErrorPattern bound): the fixes of e's SIMILAR_TO neighbours, as `similar`.
  CALL (e) {
    // A contradicted link (a fix it lent failed here: see learning/apply_events' outcomes)
    // lends nothing more. retrieval/expand tests links with this same rule.
    OPTIONAL MATCH (e)-[s:SIMILAR_TO]-(n:ErrorPattern)-[r:RESOLVED_BY]->(f:Fix)
    WHERE n <> e AND coalesce(s.contradicted, 0) <= coalesce(s.confirmed, 0)
    // identity: the link joins two patterns of one tool that are provably one error (s.identity, decided
    // when the link was made: kgmem/learning/identity.py; a link made before that was recorded: the same
    // core template and identity keys); only a fix borrowed over such a link may be auto-applied
    // (kgmem/learning/confidence.py).
    RETURN collect(CASE WHEN f IS NULL THEN null ELSE
      {fix_id: f.id, description: f.description, source: r.source, confidence: r.confidence,
       successes: r.successes, failures: r.failures, similarity: s.score, via: n.id,
       identity: n.tool = e.tool AND coalesce(s.identity,
                   coalesce(e.template, '') <> '' AND n.template = e.template
                   AND coalesce(n.keys, '') = coalesce(e.keys, ''))} END) AS similar
  }

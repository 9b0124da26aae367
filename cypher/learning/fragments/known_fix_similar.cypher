  // Fragment (needs e: ErrorPattern bound): the fixes of e's SIMILAR_TO neighbours, as `similar`.
  CALL (e) {
    // A contradicted link (a fix it lent failed here: see learning/apply_events' outcomes)
    // lends nothing more. retrieval/expand tests links with this same rule.
    OPTIONAL MATCH (e)-[s:SIMILAR_TO]-(n:ErrorPattern)-[r:RESOLVED_BY]->(f:Fix)
    WHERE n <> e AND coalesce(s.contradicted, 0) <= coalesce(s.confirmed, 0)
    // identity: the link joins two patterns of one tool that are provably one error
    // (kgmem/learning/identity.py, link_proof): by their text (s.identity, decided when the link was made;
    // a link made before that was recorded: the same core template and identity keys, the subject's quoted
    // names among them: ErrorPattern.keys) or by an outcome
    // (s.proven_by_outcome: a fix the link lent worked here) — and no fix it lent ever failed here
    // (s.contradicted: refuted for good). Only a fix borrowed over such a link may be auto-applied
    // (kgmem/learning/confidence.py); proof says which evidence it was.
    WITH e, s, n, r, f, n.tool = e.tool AND coalesce(s.contradicted, 0) = 0 AS open,
         coalesce(s.identity, coalesce(e.template, '') <> '' AND n.template = e.template
                               AND coalesce(n.keys, '') = coalesce(e.keys, '')) AS text
    WITH s, n, r, f, CASE WHEN NOT open THEN null WHEN text THEN 'text'
                          WHEN coalesce(s.proven_by_outcome, 0) > 0 THEN 'outcome' END AS proof
    RETURN collect(CASE WHEN f IS NULL THEN null ELSE
      {fix_id: f.id, description: f.description, source: r.source, confidence: r.confidence,
       successes: r.successes, failures: r.failures, similarity: s.score, via: n.id,
       identity: proof IS NOT NULL, proof: proof} END) AS similar
  }

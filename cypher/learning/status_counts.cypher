// Learning counters for `kgmem learning status`. Params: ns, top.
CALL () {
  MATCH (e:ErrorPattern {ns: $ns})
  RETURN count(e) AS patterns, coalesce(sum(e.occurrences), 0) AS occurrences,
         count(CASE WHEN e.vector_pending THEN 1 END) AS vector_pending
}
CALL () {
  MATCH (e:ErrorPattern {ns: $ns})
  WITH e.category AS category, count(*) AS patterns, sum(e.occurrences) AS occurrences
  ORDER BY occurrences DESC
  RETURN collect({category: category, patterns: patterns, occurrences: occurrences}) AS by_category
}
CALL () {
  MATCH (f:Fix {ns: $ns})
  RETURN count(f) AS fixes
}
CALL () {
  MATCH (:ErrorPattern {ns: $ns})-[r:RESOLVED_BY]->(:Fix)
  RETURN count(r) AS resolutions, count(CASE WHEN r.confidence >= $auto_apply THEN 1 END) AS auto_apply
}
CALL () {
  MATCH (a:ErrorPattern {ns: $ns})-[s:SIMILAR_TO]->(:ErrorPattern)
  RETURN count(s) AS similar_links
}
CALL () {
  MATCH (e:ErrorPattern {ns: $ns})
  WITH e ORDER BY e.occurrences DESC, e.last_seen DESC LIMIT $top
  RETURN collect({id: e.id, tool: e.tool, category: e.category, occurrences: e.occurrences,
                  pattern: e.pattern, last_seen: e.last_seen}) AS top_errors
}
RETURN patterns, occurrences, vector_pending, by_category, fixes, resolutions, auto_apply,
       similar_links, top_errors

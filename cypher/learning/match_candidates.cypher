// Candidate known errors for new error patterns, from the two graph legs of matching
// (kgmem/learning/matching.py): (a) the same core template (index error_pattern_template),
// (b) BM25 over the patterns (full-text index kgmem_fulltext; $rows[].query is a Lucene query
// built by kgmem.retrieval.text.lucene_query, every user term escaped). The vector leg is Chroma.
// Params: ns, index, across_tools (bool), template_limit, fulltext_limit,
//         rows: [{id, tool, template, query (null = no BM25 leg)}]
UNWIND $rows AS row
CALL (row) {
  MATCH (c:ErrorPattern {ns: $ns, template: row.template})
  WHERE row.template <> '' AND c.id <> row.id AND ($across_tools OR c.tool = row.tool)
  RETURN c, 'template' AS leg, 0.0 AS bm25
  LIMIT $template_limit
  UNION
  WITH row WHERE row.query IS NOT NULL
  CALL db.index.fulltext.queryNodes($index, row.query, {limit: $fulltext_limit * 4}) YIELD node, score
  WITH node AS c, score WHERE c:ErrorPattern AND c.ns = $ns AND c.id <> row.id
    AND ($across_tools OR c.tool = row.tool)
  RETURN c, 'fulltext' AS leg, score AS bm25
  ORDER BY bm25 DESC
  LIMIT $fulltext_limit
}
RETURN row.id AS id, c.id AS candidate, c.template AS template, c.keys AS keys, c.tool AS tool,
       collect(leg) AS legs, max(bm25) AS bm25

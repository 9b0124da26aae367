// Recount every Concept's df of a namespace from its MENTIONS edges and delete the concepts no
// memory mentions any more (`kgmem reindex`, after a crash or an interrupted concurrent write).
// Params: ns. Returns how many df values changed and how many orphan concepts went.
MATCH (c:Concept {ns: $ns})
WITH c, c.df AS before, COUNT { (c)<-[:MENTIONS]-() } AS df
CALL (c, before, df) {
  WITH c, before, df WHERE df > 0 AND before <> df
  SET c.df = df
  RETURN count(*) AS fixed
}
CALL (c, df) {
  WITH c, df WHERE df = 0
  DETACH DELETE c
  RETURN count(*) AS orphans
}
RETURN sum(fixed) AS fixed, sum(orphans) AS orphans

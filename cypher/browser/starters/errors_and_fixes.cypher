// name: Errors and their fixes
// description: Error patterns with the tools that raise them and the fixes that resolve them (edge caption: confidence).
MATCH p = (t:Tool {ns: $ns})<-[:CAUSED_BY]-(e:ErrorPattern)-[:RESOLVED_BY]->(f:Fix)
RETURN p
LIMIT 100

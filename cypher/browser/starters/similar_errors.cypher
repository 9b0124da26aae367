// name: Similar errors
// description: Error patterns linked by embedding similarity (edge caption: score).
MATCH p = (a:ErrorPattern {ns: $ns})-[:SIMILAR_TO]->(b:ErrorPattern)
RETURN p
LIMIT 100

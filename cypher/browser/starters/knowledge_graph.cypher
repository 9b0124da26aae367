// name: Knowledge graph
// description: Extracted triples between entities (edge caption: predicate), with the knowledge items about them.
MATCH p = (a:Entity {ns: $ns})-[:RELATES_TO]->(b:Entity)
OPTIONAL MATCH q = (k:Knowledge)-[:ABOUT]->(a)
RETURN p, q
LIMIT 100

// name: How a fact changed
// description: Knowledge superseded by newer statements: each chain old → new with valid_from / valid_until on the nodes (current facts have no valid_until).
MATCH p = (:Knowledge {ns: $ns})-[:SUPERSEDED_BY*1..5]->(last:Knowledge)
WHERE last.valid_until IS NULL
RETURN p
LIMIT 50

// name: Contradiction chains
// description: Which knowledge replaced which (newer → older).
MATCH p = (:Knowledge {ns: $ns})-[:CONTRADICTS*1..3]->(:Knowledge)
RETURN p
LIMIT 50

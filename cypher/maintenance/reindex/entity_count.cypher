// `kgmem reindex`: how many Entity nodes have text to embed. Params: ns.
MATCH (n:Entity {ns: $ns})
WHERE n.name IS NOT NULL AND n.name <> ''
RETURN count(n) AS n

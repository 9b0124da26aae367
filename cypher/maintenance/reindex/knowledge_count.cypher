// `kgmem reindex`: how many Knowledge nodes have text to embed. Params: ns.
MATCH (n:Knowledge {ns: $ns})
WHERE n.content IS NOT NULL AND n.content <> ''
RETURN count(n) AS n

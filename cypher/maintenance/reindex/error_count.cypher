// `kgmem reindex`: how many ErrorPattern nodes have text to embed. Params: ns.
MATCH (n:ErrorPattern {ns: $ns})
WHERE coalesce(n.signature, n.pattern, '') <> ''
RETURN count(n) AS n

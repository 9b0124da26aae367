// `kgmem reindex`: how many Fix nodes have text to embed. Params: ns.
MATCH (n:Fix {ns: $ns})
WHERE n.description IS NOT NULL AND n.description <> ''
RETURN count(n) AS n

// `kgmem reindex`: how many Message nodes have text to embed. Params: ns.
MATCH (n:Message {ns: $ns})
WHERE n.text IS NOT NULL AND n.text <> ''
RETURN count(n) AS n

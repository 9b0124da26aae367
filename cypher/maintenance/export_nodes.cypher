// `kgmem export`: every node of one namespace with all its properties. Params: ns.
// Labels are read from the graph and checked against the allow-list in Python.
MATCH (n {ns: $ns})
RETURN labels(n) AS labels, properties(n) AS props
ORDER BY n.id

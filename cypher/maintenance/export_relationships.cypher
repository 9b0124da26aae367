// `kgmem export`: every relationship leaving a node of one namespace, with its properties. Params: ns.
MATCH (a {ns: $ns})-[r]->(b)
RETURN type(r) AS type, labels(a) AS start_labels, a.id AS start, labels(b) AS end_labels, b.id AS end,
       b.ns AS end_ns, properties(r) AS props
ORDER BY start, type, end

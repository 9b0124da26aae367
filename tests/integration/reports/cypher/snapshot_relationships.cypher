// Test helper: every relationship leaving a node of a namespace. Params: ns.
MATCH (a {ns: $ns})-[r]->(b)
RETURN type(r) AS type, a.id AS start, b.id AS end, properties(r) AS props

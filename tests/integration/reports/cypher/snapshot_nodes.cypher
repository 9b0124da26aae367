// Test helper: every node of a namespace (labels + all properties). Params: ns.
MATCH (n {ns: $ns})
RETURN labels(n) AS labels, properties(n) AS props
ORDER BY n.id

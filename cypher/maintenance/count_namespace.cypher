// Nodes in a namespace (import refuses a non-empty namespace unless --replace). Params: ns.
MATCH (n {ns: $ns})
RETURN count(n) AS n

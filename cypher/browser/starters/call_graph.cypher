// name: Call graph
// description: Functions and their CALLS edges (edge caption: confidence; observation edges decay when unconfirmed).
MATCH p = (:Function {ns: $ns})-[:CALLS]->(:Function)
RETURN p
LIMIT 200

// name: callgraph_edges
// description: Call-graph edges by confidence: what static analysis found and what observations confirmed or added.
// param: ns str — namespace
// param: source str = * {*,ast,observation} — only ast or observation edges (* = all)
// param: max_confidence float = 1.0 [0..1] — only edges at or below this confidence (find weak ones)
// param: limit int = 100 [1..100000] — how many edges to return
// column: caller — calling function (qualname)
// column: callee — called function (qualname)
// column: source — ast / observation
// column: confidence — current confidence
// column: times_confirmed — confirmations by observations
// column: last_confirmed — latest confirmation (or creation)
// chart: hbar x=callee y=confidence
MATCH (a:Function {ns: $ns})-[c:CALLS]->(b:Function)
WHERE ($source = '*' OR c.source = $source) AND c.confidence <= $max_confidence
RETURN a.qualname AS caller, b.qualname AS callee, c.source AS source, round(c.confidence, 3) AS confidence,
       coalesce(c.times_confirmed, 0) AS times_confirmed, c.last_confirmed AS last_confirmed
ORDER BY confidence ASC, caller, callee
LIMIT toInteger($limit)

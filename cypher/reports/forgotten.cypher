// name: forgotten
// description: The audit trail of forget: who forgot which scope and when, with the counts it erased (no content).
// param: ns str — namespace
// param: limit int = 100 [1..100000] — how many forgets to return
// column: started_at — when the forget started
// column: finished_at — when it finished (empty: interrupted, resumed by the next forget call)
// column: scope — id, session, entity or everything
// column: target — the hashed id of what was forgotten (never its name or text)
// column: by — who asked (the surface and user)
// column: state — done or running
// column: counts — what it erased, per store (JSON)
MATCH (a:KgmemForget)
WHERE a.ns = $ns
RETURN toString(a.started_at) AS started_at, toString(a.finished_at) AS finished_at, a.scope AS scope,
       a.target AS target, a.by AS by, a.state AS state, a.counts AS counts
ORDER BY a.started_at DESC
LIMIT toInteger($limit)

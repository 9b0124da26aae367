// Forgets of a namespace that started and did not finish (killed process, lost Neo4j): the next
// forget call resumes them first. Params: ns.
MATCH (a:KgmemForget)
WHERE a.ns = $ns AND a.state = 'running'
RETURN a.id AS id, a.scope AS scope, a.target AS target, a.by AS by
ORDER BY a.started_at

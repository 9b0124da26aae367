// The audit trail of a namespace, newest first. Params: ns, limit.
MATCH (a:KgmemForget)
WHERE a.ns = $ns
RETURN a.id AS id, a.scope AS scope, a.target AS target, a.by AS by, a.state AS state,
       a.started_at AS started_at, a.finished_at AS finished_at, a.counts AS counts
ORDER BY a.started_at DESC
LIMIT $limit

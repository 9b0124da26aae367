// The audit trail (content-free): who forgot which scope (its kind and the hashed id of its
// target, never a name or text) and when; state 'running' until audit_finish. Params: id, ns, scope,
// target, by, now, plan (JSON of the ids' counts).
MERGE (a:KgmemForget {id: $id})
ON CREATE SET a.ns = $ns, a.scope = $scope, a.target = $target, a.by = $by, a.started_at = $now,
              a.state = 'running', a.attempts = 0
SET a.attempts = a.attempts + 1, a.plan = $plan
RETURN a.id AS id

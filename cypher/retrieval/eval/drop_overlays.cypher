// benchmarks/locomo.py (shift-threshold simulation): forget a session's BQAR overlay and shift state
// without merging them, so the next simulated setting starts from the same global posteriors.
// Params: ns, session.
OPTIONAL MATCH (o:KgmemOverlay {ns: $ns, session: $session})
DELETE o
WITH count(*) AS _
OPTIONAL MATCH (st:KgmemSessionState {ns: $ns, session: $session})
DELETE st
RETURN count(*) AS dropped

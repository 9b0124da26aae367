// Failures still open (not followed by a success of the same tool) in the given sessions,
// newest first. Params: ns, pairs: [{session_id, tool}].
UNWIND $pairs AS p
MATCH (s:Session {ns: $ns, id: p.session_id})<-[r:IN_SESSION]-(e:ErrorPattern)
WHERE r.open = true AND e.tool = p.tool
RETURN p.session_id AS session_id, p.tool AS tool, e.id AS error_id, e.pattern AS pattern,
       e.category AS category, r.open_params AS params, r.open_at AS at
ORDER BY at DESC

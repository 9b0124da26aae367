// Per (session, tool): failures still open (not followed by a success of the same tool),
// newest first, and the last recovery not yet confirmed as held (open = false rows; see
// kgmem/learning/recovery.py). Params: ns, pairs: [{session_id, tool}].
UNWIND $pairs AS p
MATCH (s:Session {ns: $ns, id: p.session_id})<-[r:IN_SESSION]-(e:ErrorPattern)
WHERE e.tool = p.tool
  AND (r.open = true OR (r.recovery_fix IS NOT NULL AND coalesce(r.held, false) = false))
OPTIONAL MATCH (e)-[:RESOLVED_BY]->(f:Fix {ns: $ns, id: r.recovery_fix})
RETURN p.session_id AS session_id, p.tool AS tool, e.id AS error_id, e.pattern AS pattern,
       e.category AS category, r.open_params AS params, r.open_at AS at,
       coalesce(r.open, false) AS open, r.declared_fix AS declared_fix,
       r.recovery_fix AS recovery_fix, f.description AS recovery_description, r.recovered_at AS recovered_at
ORDER BY at DESC

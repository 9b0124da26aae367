// The recovery state of one error in one session (kgmem/learning/recovery.py), for resolve().
// Params: ns, error_id, session_id.
MATCH (e:ErrorPattern {ns: $ns, id: $error_id})-[r:IN_SESSION]->(:Session {ns: $ns, id: $session_id})
RETURN e.tool AS tool, coalesce(r.open, false) AS open, r.declared_fix AS declared_fix,
       r.recovery_fix AS recovery_fix, coalesce(r.held, false) AS held

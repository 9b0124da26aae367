// The conversation shifted (BQAR §10): damp the session's view of its overlay (0 = reset). The full
// deltas (d_*) are kept for the merge at session end. Params: ns, session, damping.
MATCH (o:KgmemOverlay {ns: $ns, session: $session})
SET o.v_alpha = o.v_alpha * $damping, o.v_beta = o.v_beta * $damping
RETURN count(o) AS damped

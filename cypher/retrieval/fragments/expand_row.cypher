  // One seed's row of the expansion (after fragments/expand_seed): its properties, active, overlay view, expanded.
  {
  id: seed.id, label: seed.label,
  text: coalesce(s.text, s.content, s.description, s.pattern, s.name),
  ref: s.ref, session: s.session, ts: s.ts, role: s.role, seq: s.seq, tool: s.tool,
  confidence: s.confidence, alpha: s.alpha, beta: s.beta,
  updated_at: s.updated_at, last_used: s.last_used, active: coalesce(s.is_active, true),
  v_alpha: o.v_alpha * $overlay_damping ^ CASE WHEN $overlay_epoch > o.epoch THEN $overlay_epoch - o.epoch ELSE 0 END,
  v_beta: o.v_beta * $overlay_damping ^ CASE WHEN $overlay_epoch > o.epoch THEN $overlay_epoch - o.epoch ELSE 0 END,
  expanded: expanded
}

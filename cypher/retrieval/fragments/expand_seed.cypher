// For one `seed` ({id, label, expand}) of the expansion: its node `s`, up to $per_seed neighbours
// (`expanded`) when seed.expand, and its session overlay `o`. Included by retrieval/expand and
// retrieval/search_expand (see there for the parameters); the row map is fragments/expand_row.
CALL (seed) {
  MATCH (s:Message {ns: $ns, id: seed.id}) WHERE seed.label = 'Message' RETURN s
  UNION ALL
  MATCH (s:Knowledge {ns: $ns, id: seed.id}) WHERE seed.label = 'Knowledge' RETURN s
  UNION ALL
  MATCH (s:ErrorPattern {ns: $ns, id: seed.id}) WHERE seed.label = 'ErrorPattern' RETURN s
  UNION ALL
  MATCH (s:Fix {ns: $ns, id: seed.id}) WHERE seed.label = 'Fix' RETURN s
  UNION ALL
  MATCH (s:Entity {ns: $ns, id: seed.id}) WHERE seed.label = 'Entity' RETURN s
}
CALL (seed, s) {
  WITH seed, s WHERE seed.expand AND $hops > 0
  // The walks from the seed, one branch per kind of hop, each returning its paths p to neighbours n;
  // the neighbours of all branches are ranked together below. Concept nodes (the concept graph,
  // MENTIONS) are not walked by these branches (a predicate on every node of the path). A contradicted SIMILAR_TO link (a fix
  // it lent failed across it) is not walked: the same rule by which it lends no fixes
  // (cypher/learning/fragments/known_fix_similar.cypher). The bound is a literal per branch (Cypher
  // takes no parameter there), so a 1-hop search does not walk 2-hop paths only to drop them.
  CALL (s) {
    WITH s WHERE $hops = 1
    MATCH p = (s)-[:NEXT|RESOLVED_BY|SIMILAR_TO|ABOUT|MENTIONS*1..1]-(n)
    WHERE none(x IN nodes(p) WHERE x:Concept)
      AND all(link IN relationships(p) WHERE type(link) <> 'SIMILAR_TO'
              OR coalesce(link.contradicted, 0) <= coalesce(link.confirmed, 0))
    RETURN p, n
    UNION ALL
    WITH s WHERE $hops = 2
    MATCH p = (s)-[:NEXT|RESOLVED_BY|SIMILAR_TO|ABOUT|MENTIONS*1..2]-(n)
    WHERE none(x IN nodes(p) WHERE x:Concept)
      AND all(link IN relationships(p) WHERE type(link) <> 'SIMILAR_TO'
              OR coalesce(link.contradicted, 0) <= coalesce(link.confirmed, 0))
    RETURN p, n
  }
  WITH p, n WHERE n.ns = $ns AND coalesce(n.is_active, true)
  WITH p, n,
       CASE WHEN n:Message THEN 'Message' WHEN n:Knowledge THEN 'Knowledge'
            WHEN n:ErrorPattern THEN 'ErrorPattern' WHEN n:Fix THEN 'Fix'
            WHEN n:Entity THEN 'Entity' END AS label
  WHERE label IN $labels AND ($session IS NULL OR label <> 'Message' OR n.session = $session)
  WITH p, n, label,
       reduce(w = 1.0, r IN relationships(p) |
              w * $decay * CASE WHEN type(r) IN ['SIMILAR_TO', 'RESOLVED_BY']
                                THEN coalesce(r.score, r.confidence, 1.0) ELSE 1.0 END) AS weight
  ORDER BY weight DESC
  LIMIT $per_seed
  OPTIONAL CALL (n) {
    WITH n WHERE $overlay_session IS NOT NULL  // no index seek at all for session-less searches
    MATCH (ov:KgmemOverlay {ns: $ns, session: $overlay_session, item_id: n.id})
    RETURN ov
  }
  RETURN collect({
    id: n.id, label: label, weight: weight,
    path_ids: [x IN nodes(p) | x.id], path_rels: [r IN relationships(p) | type(r)],
    text: coalesce(n.text, n.content, n.description, n.pattern, n.name),
    ref: n.ref, session: n.session, ts: n.ts, role: n.role, seq: n.seq, tool: n.tool,
    confidence: n.confidence, alpha: n.alpha, beta: n.beta,
    updated_at: n.updated_at, last_used: n.last_used,
    v_alpha: ov.v_alpha * $overlay_damping ^ CASE WHEN $overlay_epoch > ov.epoch THEN $overlay_epoch - ov.epoch ELSE 0 END,
    v_beta: ov.v_beta * $overlay_damping ^ CASE WHEN $overlay_epoch > ov.epoch THEN $overlay_epoch - ov.epoch ELSE 0 END
  }) AS expanded
}
OPTIONAL CALL (seed) {
  WITH seed WHERE $overlay_session IS NOT NULL
  MATCH (o:KgmemOverlay {ns: $ns, session: $overlay_session, item_id: seed.id})
  RETURN o
}

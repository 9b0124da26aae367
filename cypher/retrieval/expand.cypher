// Hydrate the fused candidates of both legs and expand the best of them, in one round trip
// (docs/retrieval.md "The pipeline", step 5). The candidates are found with one index seek per label for the whole list
// (a seek per candidate and label cost the server ~1.5 × as much). For each seed: its properties
// (for quality ranking), and up to $per_seed neighbours within $hops hops over the Graph RAG
// relationships — fixes of errors (RESOLVED_BY),
// similar errors (SIMILAR_TO, but not a contradicted link), knowledge about the same entities
// (ABOUT / MENTIONS), neighbouring turns (NEXT) — each with its path and a weight decayed per
// hop (× the edge's score or confidence).
// With $overlay_session, each item also carries that session's overlay view (v_alpha, v_beta: BQAR,
// feedback.cypher), one index seek per item; null = none. The view is damped here, at read
// time, by $overlay_damping for every conversation shift since it was written ($overlay_epoch − the
// overlay's epoch): a shift costs the search no write.
// A question naming two or more entities ($names) also expands each name's best candidate: the first
// item of the pool ($pool_rank: the head of the fused list, best first) whose "role: text" has the
// name as a whole word. Picked here, from the text this read hydrates anyway, so the legs never return
// text for it (Chroma's documents and metadata cost a question naming two entities ~3 ms).
// Params: ns, seeds [{id, label, expand}] (the pool's ids among them), hops (0-2), decay, per_seed,
//         labels (allowed result labels), session (null = any; restricts Message neighbours),
//         names (lower-cased; [] = no entity seeds), pool_rank ({id: rank} of the pool), overlay_session (null =
//         none), overlay_epoch (the session's shift count), overlay_damping (per shift; 1 = none),
//         as_of (null = now: superseded knowledge is not current; an ISO time: what was valid then —
//         valid_from <= as_of < valid_until, and no turn said after it). A seed that is not valid comes
//         back with active = false (dropped like a removed item), a neighbour that is not valid is not
//         reached: the Chroma hits are filtered by this answer.
// Returns one row: rows, one map per seed found (its properties, active, expand, v_alpha, v_beta,
// expanded).
CALL () {
  MATCH (s:Message) WHERE s.ns = $ns AND s.id IN [x IN $seeds WHERE x.label = 'Message' | x.id] RETURN s, 'Message' AS label
  UNION ALL
  MATCH (s:Knowledge) WHERE s.ns = $ns AND s.id IN [x IN $seeds WHERE x.label = 'Knowledge' | x.id] RETURN s, 'Knowledge' AS label
  UNION ALL
  MATCH (s:ErrorPattern) WHERE s.ns = $ns AND s.id IN [x IN $seeds WHERE x.label = 'ErrorPattern' | x.id] RETURN s, 'ErrorPattern' AS label
  UNION ALL
  MATCH (s:Fix) WHERE s.ns = $ns AND s.id IN [x IN $seeds WHERE x.label = 'Fix' | x.id] RETURN s, 'Fix' AS label
  UNION ALL
  MATCH (s:Entity) WHERE s.ns = $ns AND s.id IN [x IN $seeds WHERE x.label = 'Entity' | x.id] RETURN s, 'Entity' AS label
}
// The pool's searchable text ("role: text", lower-cased), best first; then each name's first match
// (reduce with CASE stops testing a name at its first match: the regex is the costly part).
WITH s, label, s.id AS id, $pool_rank[s.id] AS rank
ORDER BY rank
WITH collect({s: s, label: label, id: id}) AS found,
     collect(CASE WHEN rank IS NOT NULL THEN [id, toLower(coalesce(s.role, '')),
             toLower(coalesce(s.text, s.content, s.description, s.pattern, s.name, ''))] END) AS pool
WITH found, [p IN pool | [p[0], CASE WHEN p[2] = '' THEN '' WHEN p[1] = '' THEN p[2] ELSE p[1] + ': ' + p[2] END]] AS pool
WITH found, [name IN $names | reduce(hit = null, p IN pool |
  CASE WHEN hit IS NOT NULL THEN hit
       WHEN p[1] CONTAINS name AND p[1] =~ '(?sU).*\\b\\Q' + name + '\\E\\b.*' THEN p[0] END)] AS named
UNWIND found AS f
WITH f.s AS s, f.label AS label,
     f.id IN [x IN $seeds WHERE x.expand | x.id] + [id IN named WHERE id IS NOT NULL] AS expand
CALL (s, expand) {
  WITH s, expand WHERE expand AND $hops > 0
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
  WITH p, n WHERE n.ns = $ns
    AND all(v IN [n] WHERE
      // @include retrieval/fragments/valid
    )
    AND (NOT n:Entity OR EXISTS {
      MATCH (fact:Knowledge)-[:ABOUT]->(n)
      WHERE all(v IN [fact] WHERE
        // @include retrieval/fragments/valid
      )
    })
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
  OPTIONAL MATCH (ov:KgmemOverlay {ns: $ns, session: $overlay_session, item_id: n.id})
  RETURN collect({
    id: n.id, label: label, weight: weight,
    path_ids: [x IN nodes(p) | x.id], path_rels: [r IN relationships(p) | type(r)],
    text: CASE WHEN label = 'Entity' THEN n.name + ': ' + reduce(t = '', x IN COLLECT {
            MATCH (fact:Knowledge)-[:ABOUT]->(n)
            WHERE all(v IN [fact] WHERE
              // @include retrieval/fragments/valid
            )
            RETURN fact.content ORDER BY fact.confidence DESC LIMIT 3
          } | t + CASE WHEN t = '' THEN '' ELSE ' ' END + x)
          ELSE coalesce(n.text, n.content, n.description, n.pattern, n.name) END,
    ref: n.ref, session: n.session, ts: n.ts, role: n.role, seq: n.seq, tool: n.tool,
    confidence: n.confidence, alpha: n.alpha, beta: n.beta,
    updated_at: n.updated_at, last_used: n.last_used, valid_from: n.valid_from, valid_until: n.valid_until,
    v_alpha: ov.v_alpha * $overlay_damping ^ CASE WHEN $overlay_epoch > ov.epoch THEN $overlay_epoch - ov.epoch ELSE 0 END,
    v_beta: ov.v_beta * $overlay_damping ^ CASE WHEN $overlay_epoch > ov.epoch THEN $overlay_epoch - ov.epoch ELSE 0 END
  }) AS expanded
}
// An entity is a name: it is a hit only with its facts (the valid knowledge ABOUT it, most trusted
// first), which become its text; an entity without one is not a hit on its own.
WITH s, label, expand, expanded,
     CASE WHEN label = 'Entity' THEN COLLECT {
       MATCH (fact:Knowledge)-[:ABOUT]->(s)
       WHERE all(v IN [fact] WHERE
         // @include retrieval/fragments/valid
       )
       RETURN fact.content ORDER BY fact.confidence DESC LIMIT 3
     } END AS facts
OPTIONAL MATCH (o:KgmemOverlay {ns: $ns, session: $overlay_session, item_id: s.id})
// One row holding the list: a row per seed would cost the client a Bolt message each.
RETURN collect({
  id: s.id, label: label,
  text: CASE WHEN facts IS NULL THEN coalesce(s.text, s.content, s.description, s.pattern, s.name)
             ELSE s.name + ': ' + reduce(t = '', x IN facts | t + CASE WHEN t = '' THEN '' ELSE ' ' END + x) END,
  ref: s.ref, session: s.session, ts: s.ts, role: s.role, seq: s.seq, tool: s.tool,
  confidence: s.confidence, alpha: s.alpha, beta: s.beta,
  updated_at: s.updated_at, last_used: s.last_used, expand: expand,
  valid_from: s.valid_from, valid_until: s.valid_until,
  active: (facts IS NULL OR size(facts) > 0) AND all(v IN [s] WHERE
    // @include retrieval/fragments/valid
  ),
  v_alpha: o.v_alpha * $overlay_damping ^ CASE WHEN $overlay_epoch > o.epoch THEN $overlay_epoch - o.epoch ELSE 0 END,
  v_beta: o.v_beta * $overlay_damping ^ CASE WHEN $overlay_epoch > o.epoch THEN $overlay_epoch - o.epoch ELSE 0 END,
  expanded: expanded
}) AS rows

// Hydrate the fused candidates of the legs, expand the best of them and (concept hop) walk the
// concepts of others, in one round trip (docs/design.md §6.4).
// For each seed: its properties (for quality ranking), and, when seed.expand, up to $per_seed
// neighbours within $hops hops over the Graph RAG relationships — fixes of errors (RESOLVED_BY),
// similar errors (SIMILAR_TO, but not a contradicted link), knowledge about the same entities
// (ABOUT / MENTIONS), neighbouring turns (NEXT) — each with its path and a weight decayed per
// hop (× the edge's score or confidence).
// With $overlay_session, each item also carries that session's overlay view (v_alpha, v_beta: BQAR,
// feedback.cypher), one index seek per item; null = none. The view is damped here, at read
// time, by $overlay_damping for every conversation shift since it was written ($overlay_epoch − the
// overlay's epoch): a shift costs the search no write.
// For each hop seed: its neighbours through shared concepts (fragments/concept_hop_seed).
// Params: ns, seeds [{id, label, expand}], hops (0-2), decay, per_seed, labels (allowed result
//         labels), session (null = any; restricts Message neighbours), overlay_session (null = none),
//         overlay_epoch (the session's shift count), overlay_damping (per shift; 1 = none),
//         hop_seeds [{id, label}] ([] = no concept hop), concept_max_df, concept_alpha, concept_per_seed.
// Returns one row: rows, one map per seed found (its properties, active, v_alpha, v_beta, expanded);
// hop, one {seed, neighbours} per hop seed found. Each part is one list: a row per seed would cost the
// client a Bolt message each.
CALL () {
  UNWIND $seeds AS seed
// @include retrieval/fragments/expand_seed
  RETURN collect(
// @include retrieval/fragments/expand_row
  ) AS rows
}
CALL () {
  UNWIND $hop_seeds AS seed
// @include retrieval/fragments/concept_hop_seed
  RETURN collect({seed: seed.id, neighbours: neighbours}) AS hop
}
RETURN rows, hop

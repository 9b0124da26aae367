// A Graph RAG search's Neo4j part in one round trip: the keyword leg, the fusion of its hits with
// the other legs' candidates (weighted RRF, as kgmem.retrieval.fusion.fuse), and the expansion of
// the fused head (fragments/expand_seed, as retrieval/expand). The caller re-fuses in Python and
// uses the expansion only when this statement picked the same head and seeds (else it reads
// retrieval/expand again), so the ranking never depends on this copy of the arithmetic.
// Params: the keyword leg's (index; query: Lucene, null = no searchable term; ns, labels, session,
//         fetch, n — see retrieval/keyword); pre: the other legs' candidates, fused, in order of first
//         appearance [{id, label, score (their RRF sum), vrank (vector rank or null)}]; keyword_weight,
//         rrf_k, agreement_bonus; size (head hydrated), expand (first `expand` of the head are walked);
//         the expansion's (hops, decay, per_seed, overlay_session, overlay_epoch, overlay_damping —
//         see retrieval/expand).
// Returns one row: kw (the keyword hits, best first: id, label, score), head (ids hydrated, best
// first), expanded (ids walked), rows (retrieval/expand's rows).
CALL () {
  WITH 1 AS one WHERE $query IS NOT NULL
// @include retrieval/fragments/keyword_hits
  RETURN collect({id: node.id, label: label, score: score}) AS kw
}
WITH kw, [i IN range(0, size(kw) - 1) | {id: kw[i].id, label: kw[i].label, rank: i + 1}] AS kr
WITH kw, kr, [p IN $pre | p.id] AS pre_ids
WITH kw, [p IN $pre | {id: p.id, label: p.label, vrank: p.vrank, score: p.score,
                       krank: head([x IN kr WHERE x.id = p.id | x.rank])}]
         + [x IN kr WHERE NOT x.id IN pre_ids | {id: x.id, label: x.label, vrank: null, score: 0.0,
                                                 krank: x.rank}] AS items
// Summed in fusion.fuse's order (the other legs' sum, the keyword term, the agreement bonus); ties in
// order of first appearance (`at`).
CALL (items) {
  UNWIND range(0, size(items) - 1) AS at
  WITH at, items[at] AS it
  WITH at, it, CASE WHEN it.krank IS NULL THEN it.score
                    ELSE it.score + $keyword_weight / ($rrf_k + it.krank) END AS score
  WITH at, it, CASE WHEN $agreement_bonus > 0 AND it.vrank IS NOT NULL AND it.krank IS NOT NULL
                    THEN score + $agreement_bonus / ($rrf_k + CASE WHEN it.vrank > it.krank THEN it.vrank
                                                                    ELSE it.krank END)
                    ELSE score END AS score
  ORDER BY score DESC, at
  RETURN collect({id: it.id, label: it.label}) AS ranked
}
WITH kw, ranked[0..$size] AS head
WITH kw, [i IN range(0, size(head) - 1) | {id: head[i].id, label: head[i].label, expand: i < $expand}] AS seeds
CALL (seeds) {
  UNWIND seeds AS seed
// @include retrieval/fragments/expand_seed
  RETURN collect(
// @include retrieval/fragments/expand_row
  ) AS rows
}
RETURN kw, [s IN seeds | s.id] AS head, [s IN seeds WHERE s.expand | s.id] AS expanded, rows

// Which of these knowledge items may a search return (kgmem.retrieval.validity): active, and current
// ($as_of null: no valid_until) or valid at $as_of (valid_from <= as_of < valid_until); with their times.
// For candidates no Neo4j statement of the search has checked (the vector leg's hits without the traversal).
// Params: ns, ids, as_of. Returns one row: rows [{id, valid_from, valid_until}].
UNWIND $ids AS id
MATCH (k:Knowledge {ns: $ns, id: id})
WHERE all(v IN [k] WHERE
  // @include retrieval/fragments/valid
)
RETURN collect({id: k.id, valid_from: k.valid_from, valid_until: k.valid_until}) AS rows

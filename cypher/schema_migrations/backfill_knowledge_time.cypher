// Schema 10 migration: knowledge items written before time was kept get it. valid_from = when the item
// was first stored (the best record there is), recorded_at = the same; an item another one already
// CONTRADICTS (and that is not manual) is superseded by the earliest of them: valid_until = that item's
// valid_from and a SUPERSEDED_BY edge old -> new (supersede_contradicted.cypher, run after this one).
// Idempotent: items that have valid_from are not touched.
MATCH (k:Knowledge)
WHERE k.valid_from IS NULL
CALL (k) {
  SET k.valid_from = coalesce(k.created_at, k.updated_at, toString(datetime())),
      k.recorded_at = coalesce(k.recorded_at, k.created_at, k.updated_at, toString(datetime()))
} IN TRANSACTIONS OF 5000 ROWS

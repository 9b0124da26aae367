  // Fragment, an expression on `v` (a node; bind it with `all(v IN [node] WHERE` ... `)`): may a search
  // return v? Active, and current ($as_of null: no valid_until) or valid at $as_of: valid_from (a turn's
  // ts) <= $as_of < valid_until. A node without times (an entity) always is.
  coalesce(v.is_active, true)
  AND CASE WHEN $as_of IS NULL THEN v.valid_until IS NULL
           ELSE coalesce(v.valid_from, v.ts, '') <= $as_of AND (v.valid_until IS NULL OR v.valid_until > $as_of) END

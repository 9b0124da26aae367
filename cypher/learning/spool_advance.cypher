// Move a spool segment's replay cursor after an idempotent run of events (turns, manual
// knowledge) was replayed; learning events move it inside learning/apply_events instead.
// Returns no row when the cursor is no longer at $expected (another replayer moved it).
// Params: segment, expected, upto, now.
MERGE (c:KgmemSpool {id: $segment})
SET c.locks = coalesce(c.locks, 0) + 1
WITH c WHERE coalesce(c.seq, -1) = $expected
SET c.seq = $upto, c.replayed_at = $now
RETURN c.seq AS seq

// How far a spool segment has been replayed (-1: not at all). Params: segment.
OPTIONAL MATCH (c:KgmemSpool {id: $segment})
RETURN coalesce(c.seq, -1) AS seq

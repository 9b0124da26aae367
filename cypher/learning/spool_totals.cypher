// Events replayed from spool segments, over all segments ever replayed into this graph.
MATCH (c:KgmemSpool)
RETURN count(c) AS segments, coalesce(sum(c.seq + 1), 0) AS events

// A remembered search (query_log.cypher) that has not expired. Params: id, now_ms.
MATCH (q:KgmemQuery {id: $id})
WHERE q.expires_ms >= $now_ms
RETURN q.ns AS ns, q.session AS session, q.hit_ids AS hit_ids, q.hit_kinds AS hit_kinds, q.included AS included,
       q.epoch AS epoch

// A forget finished: its erased counts (JSON) and when. Params: id, now, counts.
MATCH (a:KgmemForget {id: $id})
SET a.state = 'done', a.finished_at = $now, a.counts = $counts
RETURN a.id AS id

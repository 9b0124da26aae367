// One page of the ids one forget tombstoned (a resumed forget erases them again), in id order after
// $after: a forget of a whole namespace tombstoned every item, and no read holds them all at once.
// Params: ns, forget, after ('' for the first page), limit.
MATCH (t:KgmemTombstone)
WHERE t.ns = $ns AND t.id > $after AND t.forget = $forget
WITH t ORDER BY t.ns, t.id LIMIT $limit
RETURN t.id AS id, t.label AS label

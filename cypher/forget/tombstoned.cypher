// Which of these ids are tombstoned, and since when (the guards where events enter). Params: ns, ids.
UNWIND $ids AS id
MATCH (t:KgmemTombstone {ns: $ns, id: id})
RETURN t.id AS id, t.at_ms AS at_ms, t.label AS label

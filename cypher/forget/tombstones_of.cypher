// The ids one forget tombstoned (a resumed forget erases them again). Params: ns, forget.
MATCH (t:KgmemTombstone {ns: $ns})
WHERE t.forget = $forget
RETURN t.id AS id, t.label AS label

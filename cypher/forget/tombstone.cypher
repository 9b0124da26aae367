// Content-free tombstones: ids (hashes, never text), the scope, the forget that made them and when,
// and when they expire. MERGEd: a resumed forget writes them again unchanged.
// Params: ns, forget, scope, at_ms, expires_ms, rows [{id, label}].
UNWIND $rows AS row
MERGE (t:KgmemTombstone {ns: $ns, id: row.id})
SET t.label = row.label, t.scope = $scope, t.forget = $forget, t.at_ms = $at_ms, t.expires_ms = $expires_ms
RETURN count(t) AS written

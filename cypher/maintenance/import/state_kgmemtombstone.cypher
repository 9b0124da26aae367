// `kgmem import`: one batch of forget tombstones (ids, scope, time; no content), so an imported
// namespace keeps refusing what was forgotten in it. Params: ns, rows: [{key: {id}, props}].
UNWIND $rows AS row
MERGE (t:KgmemTombstone {ns: $ns, id: row.key.id})
SET t = row.props
RETURN count(t) AS written

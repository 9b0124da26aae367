// `kgmem import`: one batch of BQAR session overlays (a session's unmerged feedback on one item),
// all properties. Params: ns, rows: [{key: {session, item_id}, props}] (props.ns is the target).
UNWIND $rows AS row
MERGE (o:KgmemOverlay {ns: $ns, session: row.key.session, item_id: row.key.item_id})
SET o = row.props
RETURN count(o) AS written

// Function nodes (call-graph self-healing). Params: ns, now, rows: [{id, qualname}].
UNWIND $rows AS row
MERGE (f:Function {ns: $ns, id: row.id})
  ON CREATE SET f.qualname = row.qualname, f.created_at = $now
SET f.updated_at = $now
RETURN count(f) AS written

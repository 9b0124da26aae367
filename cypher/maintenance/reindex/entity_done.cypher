// `kgmem reindex`: these Entity vectors are in Chroma now. Params: ns, ids.
UNWIND $ids AS id
MATCH (n:Entity {ns: $ns, id: id})
WHERE n.vector_pending = true
SET n.vector_pending = false
RETURN count(n) AS cleared

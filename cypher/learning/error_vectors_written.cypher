// Chroma now holds these patterns' vectors. Params: ns, ids.
UNWIND $ids AS id
MATCH (e:ErrorPattern {ns: $ns, id: id})
SET e.vector_pending = false

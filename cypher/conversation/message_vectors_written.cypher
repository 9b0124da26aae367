// Chroma now holds these messages' vectors. Params: ns, ids.
UNWIND $ids AS id
MATCH (m:Message {ns: $ns, id: id})
SET m.vector_pending = false

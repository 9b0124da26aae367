// The messages of one session in conversation order. Params: ns, id (session id).
MATCH (m:Message {ns: $ns})-[:PART_OF]->(:Session {ns: $ns, id: $id})
RETURN m.id AS id, m.role AS role, m.text AS text, m.ref AS ref, m.ts AS ts, m.seq AS seq,
       m.session AS session
ORDER BY m.seq

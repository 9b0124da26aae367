// Schema 4 migration: give the searchable nodes of one namespace their ns_key. Params: ns, ns_key.
MATCH (n:ErrorPattern|Fix|Knowledge|Entity|Message {ns: $ns})
WHERE n.ns_key IS NULL
CALL (n) { SET n.ns_key = $ns_key } IN TRANSACTIONS OF 5000 ROWS

// Schema 4 migration: namespaces that still have searchable nodes without ns_key.
MATCH (n:ErrorPattern|Fix|Knowledge|Entity|Message)
WHERE n.ns_key IS NULL AND n.ns IS NOT NULL
RETURN DISTINCT n.ns AS ns

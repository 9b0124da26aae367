// The properties of the keyword leg's full-text index (empty when it does not exist yet).
SHOW FULLTEXT INDEXES YIELD name, properties
WHERE name = 'kgmem_fulltext'
RETURN properties

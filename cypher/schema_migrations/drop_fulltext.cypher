// Schema 4 migration: drop a kgmem_fulltext index defined without ns_key (schema.cypher re-creates it).
DROP INDEX kgmem_fulltext IF EXISTS

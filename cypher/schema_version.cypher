// The schema version `kgmem init` recorded.
MATCH (m:KgmemSchema {id: 'schema'}) RETURN m.version AS version

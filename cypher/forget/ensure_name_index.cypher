// The index behind "does this namespace have any entity-name tombstone" (forget/screen, asked at every
// analysis write and spool replay): applied by the first forget of a process with the other forget
// tables, idempotent. Params: none.
CREATE INDEX kgmem_tombstone_label IF NOT EXISTS FOR (n:KgmemTombstone) ON (n.ns, n.label)

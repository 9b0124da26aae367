// The forget tables' uniqueness (and with it the index every guard looks tombstones up by): applied
// by the first forget of a process (kgmem.forget.service), idempotent. Params: none.
CREATE CONSTRAINT kgmem_tombstone_key IF NOT EXISTS FOR (n:KgmemTombstone) REQUIRE (n.ns, n.id) IS UNIQUE

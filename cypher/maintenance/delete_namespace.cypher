// Delete every node of one namespace, in batches (tests, demos). Params: ns. It holds the namespace's
// nodes while it runs: for a large one, kgmem.maintenance.delete_namespace (bounded batches).
// Least connected first: a message takes its few edges with it, so a hub (a Concept half the
// messages mention) has lost them by its turn — no batch deletes a hub's 100 K edges at once.
MATCH (n {ns: $ns})
WITH n ORDER BY COUNT { (n)--() }
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS

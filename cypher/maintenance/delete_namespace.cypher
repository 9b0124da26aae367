// Delete every node of one namespace, in batches (tests, `kgmem import --replace`). Params: ns.
MATCH (n {ns: $ns})
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS

// Delete every node of one namespace, $batch nodes per transaction (kgmem.maintenance.delete_namespace).
// Params: ns, batch. Least connected first, as in delete_namespace: each transaction's edges stay few.
MATCH (n {ns: $ns})
WITH n ORDER BY COUNT { (n)--() }
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF $batch ROWS

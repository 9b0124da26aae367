// Benchmark clean-up, before kgmem.maintenance.delete_namespace: drop the relationships of the
// bench fix in batches (100 K RESOLVED_BY on one node exceed one transaction's memory when
// DETACH DELETE takes them at once). Params: ns.
MATCH (:Fix {ns: $ns})<-[r]-()
CALL (r) { DELETE r } IN TRANSACTIONS OF 10000 ROWS

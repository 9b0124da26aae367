// forget everything=True: one batch of a namespace's nodes with their relationships (the forget
// tables stay: the audit trail and the tombstones). Params: ns, batch.
MATCH (n {ns: $ns})
WHERE NOT n:KgmemTombstone AND NOT n:KgmemForget
WITH n LIMIT $batch
WITH n, head(labels(n)) AS label, COUNT { (n)--() } AS degree
DETACH DELETE n
RETURN label, count(*) AS n, sum(degree) AS degree

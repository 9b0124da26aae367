// forget everything=True: what a namespace holds, per label (the forget tables themselves stay).
// Params: ns.
MATCH (n {ns: $ns})
WHERE NOT n:KgmemTombstone AND NOT n:KgmemForget
RETURN head(labels(n)) AS label, count(n) AS n

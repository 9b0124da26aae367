// `kgmem import --replace`: delete every node of one namespace inside the import's own
// transaction (unlike delete_namespace, which commits in batches), so a failed import leaves
// the namespace as it was. Params: ns.
MATCH (n {ns: $ns})
DETACH DELETE n

// `kgmem export`: the retrieval session state of one namespace — logged queries that have not
// expired, session overlays, session shift states — and forget's audit trail and tombstones, with
// all their properties. Params: ns, now_ms.
CALL () {
  MATCH (n:KgmemQuery) WHERE n.ns = $ns AND n.expires_ms >= $now_ms RETURN n
  UNION ALL
  MATCH (n:KgmemOverlay {ns: $ns}) RETURN n
  UNION ALL
  MATCH (n:KgmemSessionState {ns: $ns}) RETURN n
  UNION ALL
  MATCH (n:KgmemForget) WHERE n.ns = $ns RETURN n
  UNION ALL
  MATCH (n:KgmemTombstone {ns: $ns}) RETURN n
}
RETURN labels(n) AS labels, properties(n) AS props

// A session's shift-detection state (moving centroid of its query embeddings). Params: ns, session.
MATCH (st:KgmemSessionState {ns: $ns, session: $session})
RETURN st.centroid AS centroid, st.n AS n, st.shifts AS shifts

// Test fixture: the parts of the analyst graph not written by a public API yet (fixes with
// their statistics, similarity links, non-manual knowledge, feedback posteriors), plus
// back-dating so trends and staleness have history. Params: see fixture.py.
MATCH (t1:ErrorPattern {ns: $ns, id: $timeout1})
MATCH (t2:ErrorPattern {ns: $ns, id: $timeout2})
MATCH (p:ErrorPattern {ns: $ns, id: $perm})
MATCH (s1:Session {ns: $ns, id: $s1})
MATCH (s2:Session {ns: $ns, id: $s2})
MATCH (manual:Knowledge {ns: $ns, id: $manual})
MATCH (msg:Message {ns: $ns, id: $msg})
// s1 happened ten days ago
SET s1.started_at = $old10
WITH *
MATCH (t1)-[old:IN_SESSION]->(s1)
SET old.last_seen = $old10
MERGE (f1:Fix {ns: $ns, id: $fix1})
  ON CREATE SET f1.description = 'increase the timeout', f1.source = 'observed',
                f1.created_at = $now, f1.updated_at = $now, f1.vector_pending = false
MERGE (f2:Fix {ns: $ns, id: $fix2})
  ON CREATE SET f2.description = 'run the command with sudo', f2.source = 'user',
                f2.created_at = $now, f2.updated_at = $now, f2.vector_pending = false
MERGE (t1)-[r1:RESOLVED_BY]->(f1)
SET r1 += {confidence: 0.8, successes: 4, failures: 1, alpha: 5.0, beta: 2.0, last_used: $now}
MERGE (t2)-[r2:RESOLVED_BY]->(f1)
SET r2 += {confidence: 0.6, successes: 1, failures: 1, alpha: 2.0, beta: 2.0, last_used: $now}
MERGE (p)-[r3:RESOLVED_BY]->(f2)
SET r3 += {confidence: 0.4, successes: 0, failures: 2, alpha: 1.0, beta: 3.0, last_used: $now}
MERGE (t1)-[sim:SIMILAR_TO]->(t2)
SET sim.score = 0.9
CREATE (k1:Knowledge {ns: $ns, id: $k1, type: 'fact', content: 'The API rate limit is 100 requests per minute',
        confidence: 0.85, times_seen: 3, source_sessions: ['s2'], is_manual: false, is_active: true,
        created_at: $now, updated_at: $now, last_seen_at: $now, vector_pending: true,
        alpha: 3.2, beta: 1.1, feedback_count: 4, valid_from: $now, recorded_at: $now})
CREATE (k2:Knowledge {ns: $ns, id: $k2, type: 'fact', content: 'The API rate limit is 50 requests per minute',
        confidence: 0.2, times_seen: 1, source_sessions: [], is_manual: false, is_active: true,
        created_at: $old60, updated_at: $now, last_seen_at: $old5, vector_pending: true,
        valid_from: $old60, recorded_at: $old60, valid_until: $now, superseded_at: $now})
CREATE (k3:Knowledge {ns: $ns, id: $k3, type: 'pattern', content: 'Retries with backoff fix flaky network calls',
        confidence: 0.55, times_seen: 2, source_sessions: [], is_manual: false, is_active: true,
        created_at: $old60, updated_at: $old60, last_seen_at: $old60, vector_pending: true})
CREATE (k4:Knowledge {ns: $ns, id: $k4, type: 'preference', content: 'The user prefers tabs over spaces',
        confidence: 0.65, times_seen: 1, source_sessions: [], is_manual: false, is_active: false,
        created_at: $old5, updated_at: $old5, last_seen_at: $old5, vector_pending: true})
CREATE (k1)-[:CONTRADICTS {created_at: $now, session: 's2'}]->(k2)
CREATE (k2)-[:SUPERSEDED_BY {created_at: $now, at: $now}]->(k1)
CREATE (k1)-[:FROM_SESSION]->(s2)
MERGE (manual)-[:FROM_SESSION]->(s1)
SET manual.last_seen_at = $old100, manual.created_at = $old100
SET msg.alpha = 1.0, msg.beta = 2.5, msg.feedback_count = 2
RETURN count(*) AS done

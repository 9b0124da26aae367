// One batch of learning events in ONE transaction: error occurrences, fix outcomes
// (with confidence propagation) and closed failures. Used by tool_result, tool_results,
// resolve/fix_applied, correction and spool replay alike.
//
// Exactly-once spool replay: when $segment is set, the statement first locks the
// segment's cursor node and proceeds only if the cursor still equals $expected
// (the value the replayer read); it then moves the cursor to $upto. A replay that
// already committed returns no rows and changes nothing.
//
// A session being forgotten (cypher/forget/mark_session.cypher) takes nothing from this write: the
// statement first takes the write lock of every existing session it names ($sessions, sorted: one lock
// order for every writer) and reads the forget's mark under it, so a forget that marks one of them
// either waits for this commit (and then plans, and erases, what it wrote) or has marked it already
// (and its events, closes, recoveries and observed fixes are skipped here). A fix outcome on an error
// pattern seen only in sessions being forgotten is skipped too (the mark locks those patterns), and one
// on a pattern a forget erased is not created again (its tombstone).
//
// Params: ns, now, segment, expected, upto, marks (ingest keys, usually []), sessions (the session ids
//   the rows name, sorted),
//   judgements (judgement keys, usually []), call (a fresh id per call), boost, penalty, lo, hi, initial, rate,
//   errors:   [{id, tool_id, tool, session_id, session, pattern, signature, keys, category, template,
//               example, count, first, last, open, params, concepts}]
//             concepts / error_concepts / fix_concepts: concept rows of the pattern / fix description
//             (kgmem.concepts; MENTIONS, cypher/concepts/fragments/link_mentions), null = not extracted
//   outcomes: [{error_id, tool, pattern, signature, keys, category, template, fix_id, description, source,
//               success, at, weight?, proves, error_concepts, fix_concepts, session_id?}]
//             session_id: the session of an observed recovery (null for resolve / correction)
//             proves: a success of this fix may prove two linked errors one (kgmem/learning/identity.py)
//             weight (default 1): how many successes/failures this outcome counts; 0 confirms an
//             already counted recovery (names it, upgrades an 'observed' edge to the caller's source)
//   closes:   [{error_id, session_id}]
//   retracts: [{error_id, fix_id, weight}]  a recovery's success moving to another fix (resolve() renaming
//             an observed recovery); an edge left with no evidence is removed, a Fix left unused too
//   recoveries: [{error_id, session_id, tool, fix_id, kind, held, fresh}]  recovery state on IN_SESSION
//             (kgmem/learning/recovery.py): kind 'declared' names the fix of an open failure;
//             kind 'recovery' records the fix that closed it (fresh: a new recovery, which supersedes
//             the session's other recoveries of the tool)
OPTIONAL CALL () {
  WITH $segment AS seg WHERE seg IS NOT NULL
  MERGE (c:KgmemSpool {id: seg})
  SET c.locks = coalesce(c.locks, 0) + 1
  RETURN c
}
WITH c WHERE c IS NULL OR coalesce(c.seq, -1) = $expected
SET c.seq = $upto, c.replayed_at = $now
WITH 1 AS one
// Bulk ingest (kgmem ingest): $marks are the ingest keys of these events. They are written
// below in this same transaction, and if any of them is already there (a re-run, or a retry
// whose first commit went through) the statement returns no rows and changes nothing.
WHERE NOT EXISTS { MATCH (done:IngestedEvent {ns: $ns}) WHERE done.id IN $marks }
// A judgement counts once (resolve / fix_applied on one error occurrence with one fix,
// kgmem/learning/judgement.py): $judgements are its keys, written as IngestedEvent marks. The MERGE
// comes first — a plain write under the (ns, id) uniqueness constraint, so a retry racing from another
// thread or process waits for the first to commit — and a mark this call ($call) did not create
// means the outcome was already counted: the statement returns no rows and changes nothing.
CALL () {
  UNWIND $judgements AS key
  MERGE (j:IngestedEvent {ns: $ns, id: key})
    ON CREATE SET j.type = 'fix_judgement', j.source = 'resolve', j.call = $call, j.created_at = $now
  RETURN count(CASE WHEN coalesce(j.call, '') <> $call THEN 1 END) AS repeats
}
WITH repeats WHERE repeats = 0

// The sessions' write locks, then their forget marks (see the head of this file).
CALL () {
  UNWIND $sessions AS sid
  MATCH (s:Session {ns: $ns, id: sid})
  SET s.updated_at = $now
  WITH s WHERE s.forgetting IS NOT NULL
  RETURN collect(s.id) AS forgotten
}

CALL (forgotten) {
  UNWIND $errors AS ev
  WITH ev WHERE ev.session_id IS NULL OR NOT ev.session_id IN forgotten
  // Tool nodes are not rewritten per event (no lock, no write): their updated_at is their creation
  // time; the edges carry the per-event data. A session is written once, above (its lock).
  MERGE (t:Tool {ns: $ns, id: ev.tool_id})
    ON CREATE SET t.name = ev.tool, t.created_at = $now, t.updated_at = $now
  MERGE (e:ErrorPattern {ns: $ns, id: ev.id})
    ON CREATE SET e.tool = ev.tool, e.pattern = ev.pattern, e.category = ev.category,
                  e.signature = ev.signature, e.keys = ev.keys, e.template = ev.template, e.occurrences = 0,
                  e.first_seen = ev.first, e.created_at = $now, e.vector_pending = true
  SET e.occurrences = e.occurrences + ev.count,
      e.last_seen = CASE WHEN e.last_seen IS NULL OR ev.last > e.last_seen THEN ev.last ELSE e.last_seen END,
      e.example = ev.example, e.updated_at = $now, e.ns_key = $ns_key
  MERGE (e)-[:CAUSED_BY]->(t)
  WITH e, ev, e AS mem, ev.concepts AS concepts
  // @include concepts/fragments/link_mentions
  WITH e, ev
  CALL (e, ev) {
    WITH e, ev WHERE ev.session_id IS NOT NULL
    MERGE (s:Session {ns: $ns, id: ev.session_id})
      ON CREATE SET s.key = ev.session, s.started_at = ev.first, s.created_at = $now, s.turns = 0,
                    s.updated_at = $now
    MERGE (e)-[r:IN_SESSION]->(s)
      ON CREATE SET r.count = 0, r.first_seen = ev.first
    SET r.count = r.count + ev.count, r.last_seen = ev.last,
        r.open = ev.open, r.open_params = ev.params, r.open_at = ev.last
  }
  // What kgmem already knows: fixes of this error, and fixes of its SIMILAR_TO neighbours
  // (the same fragments as learning/known_fixes, the read of a deferred repeat).
  // @include learning/fragments/known_fix_direct
  // @include learning/fragments/known_fix_similar
  RETURN collect({id: e.id, occurrences: e.occurrences, vector_pending: e.vector_pending, pattern: e.pattern,
                  signature: e.signature, keys: e.keys, tool: e.tool, category: e.category,
                  template: e.template, direct: direct, similar: similar}) AS errors
}

CALL () {
  UNWIND $retracts AS rt
  MATCH (:ErrorPattern {ns: $ns, id: rt.error_id})-[r:RESOLVED_BY]->(f:Fix {ns: $ns, id: rt.fix_id})
  WITH r, f, rt, r.confidence - rt.weight * $boost AS x
  SET r.successes = CASE WHEN r.successes > rt.weight THEN r.successes - rt.weight ELSE 0 END,
      r.alpha = CASE WHEN r.alpha - rt.weight > 1.0 THEN r.alpha - rt.weight ELSE 1.0 END,
      r.confidence = CASE WHEN x > $hi THEN $hi WHEN x < $lo THEN $lo ELSE x END, r.updated_at = $now
  WITH r, f WHERE r.successes = 0 AND r.failures = 0
  DELETE r
  WITH f WHERE NOT EXISTS { (f)<-[:RESOLVED_BY]-() }
  WITH f, f.id AS id
  DETACH DELETE f
  RETURN collect(id) AS dropped_fixes
}

CALL (forgotten) {
  UNWIND $outcomes AS o
  WITH o WHERE o.session_id IS NULL OR NOT o.session_id IN forgotten
  // a pattern a forget erased (a resolve or correction that read it before) is not created again
  WITH o WHERE EXISTS { MATCH (:ErrorPattern {ns: $ns, id: o.error_id}) }
            OR NOT EXISTS { MATCH (:KgmemTombstone {ns: $ns, id: o.error_id}) }
  MERGE (e:ErrorPattern {ns: $ns, id: o.error_id})
    ON CREATE SET e.tool = o.tool, e.pattern = o.pattern, e.category = o.category,
                  e.signature = o.signature, e.keys = o.keys, e.template = o.template, e.occurrences = 0,
                  e.first_seen = o.at, e.last_seen = o.at, e.created_at = $now, e.vector_pending = true,
                  e.ns_key = $ns_key
  // the pattern's write lock, then its mark: one seen only in sessions being forgotten is erased by
  // their forget, so it takes no fix (whose text would outlive it)
  SET e.updated_at = $now
  WITH o, e WHERE e.forgetting IS NULL
                  OR EXISTS { MATCH (e)-[:IN_SESSION]->(other:Session) WHERE other.forgetting IS NULL }
  MERGE (f:Fix {ns: $ns, id: o.fix_id})
    ON CREATE SET f.description = o.description, f.source = o.source, f.created_at = $now,
                  f.vector_pending = true
  SET f.updated_at = $now, f.ns_key = $ns_key
  MERGE (e)-[r:RESOLVED_BY]->(f)
    ON CREATE SET r.confidence = CASE WHEN o.source = 'user' THEN $hi ELSE $initial END,
                  r.successes = 0, r.failures = 0, r.alpha = 1.0, r.beta = 1.0,
                  r.source = o.source, r.created_at = $now
  WITH e, f, r, o, e AS mem, o.error_concepts AS concepts
  // @include concepts/fragments/link_mentions
  WITH e, f, r, o, f AS mem, o.fix_concepts AS concepts
  // @include concepts/fragments/link_mentions
  // Float math, clamped to [lo, hi]; the Beta counts keep the raw evidence.
  WITH e, f, r, o, coalesce(o.weight, 1) AS w
  WITH e, f, r, o, w,
       r.confidence + w * CASE WHEN o.success THEN $boost ELSE -$penalty END AS x
  SET r.confidence = CASE WHEN x > $hi THEN $hi WHEN x < $lo THEN $lo ELSE x END,
      r.successes = r.successes + CASE WHEN o.success THEN w ELSE 0 END,
      r.failures = r.failures + CASE WHEN o.success THEN 0 ELSE w END,
      r.alpha = r.alpha + CASE WHEN o.success THEN w * 1.0 ELSE 0.0 END,
      r.beta = r.beta + CASE WHEN o.success THEN 0.0 ELSE w * 1.0 END,
      r.source = CASE WHEN w = 0 AND r.source = 'observed' THEN o.source ELSE r.source END,
      f.source = CASE WHEN w = 0 AND f.source = 'observed' THEN o.source ELSE f.source END,
      r.last_used = o.at, r.updated_at = $now
  // Evidence for or against the SIMILAR_TO links that lent this fix (near-twins, issue 9):
  // the first failure of a fix on an error it never worked on, while a neighbour has it working,
  // says that neighbour is a look-alike needing another fix — the link is contradicted; the first
  // success of such a fix here confirms the link. A link with contradicted > confirmed lends no
  // fixes and takes no propagation; counted once per fix, so a fix that failed and then worked
  // leaves its link even (it lends again). Without this, matching alone (text) keeps handing a
  // near-twin every fix of its look-alike.
  WITH e, f, r, o, w
  CALL (e, f, r, o, w) {
    WITH e, f, o WHERE w > 0 AND CASE WHEN o.success THEN r.successes = w
                                      ELSE r.successes = 0 AND r.failures = w END
    MATCH (e)-[s:SIMILAR_TO]-(n:ErrorPattern)
    WHERE n <> e AND EXISTS { MATCH (n)-[lent:RESOLVED_BY]->(f) WHERE lent.successes > 0 }
    // A success of a fix that proves identity (not a plain retry: o.proves, kgmem/learning/identity.py)
    // between two patterns of one tool also proves the two one error (proven_by_outcome; a fix borrowed
    // over the link may then act), unless a fix the link lent ever failed here: refuted for good.
    WITH s, o, o.success AND coalesce(o.proves, false) AND n.tool = e.tool AS proves
    SET s.contradicted = coalesce(s.contradicted, 0) + CASE WHEN o.success THEN 0 ELSE 1 END,
        s.confirmed = coalesce(s.confirmed, 0) + CASE WHEN o.success THEN 1 ELSE 0 END,
        s.proven_by_outcome = coalesce(s.proven_by_outcome, 0) + CASE WHEN proves THEN 1 ELSE 0 END,
        s.rejected_at = CASE WHEN o.success THEN s.rejected_at ELSE $now END,
        s.confirmed_at = CASE WHEN o.success THEN $now ELSE s.confirmed_at END
    RETURN count(s) AS evidence
  }
  // Propagation, in this same statement: neighbours that carry the same fix gain
  // rate x boost x similarity (success only; not across a contradicted link).
  WITH e, f, r, o, evidence
  CALL (e, f, o) {
    WITH e, f, o WHERE o.success AND coalesce(o.weight, 1) > 0
    // Start from the error (a handful of neighbours), never from the fix (it may resolve
    // thousands of errors): the nested call binds n before RESOLVED_BY is expanded.
    MATCH (e)-[s:SIMILAR_TO]-(n:ErrorPattern)
    WHERE n <> e AND coalesce(s.contradicted, 0) <= coalesce(s.confirmed, 0)
    CALL (n, f, s, o) {
      MATCH (n)-[r2:RESOLVED_BY]->(f)
      WITH r2, r2.confidence + coalesce(o.weight, 1) * $rate * $boost * s.score AS y
      SET r2.confidence = CASE WHEN y > $hi THEN $hi WHEN y < $lo THEN $lo ELSE y END,
          r2.propagated_at = $now
      RETURN count(r2) AS updated
    }
    RETURN sum(updated) AS propagated
  }
  RETURN collect({error_id: e.id, fix_id: f.id, confidence: r.confidence, successes: r.successes,
                  failures: r.failures, alpha: r.alpha, beta: r.beta, propagated: propagated, link_evidence: evidence,
                  fix_pending: f.vector_pending, description: f.description, source: f.source,
                  error_pending: e.vector_pending, signature: e.signature, keys: e.keys,
                  tool: e.tool, category: e.category, template: e.template}) AS resolved
}

CALL () {
  UNWIND $marks AS mark
  MERGE (m:IngestedEvent {ns: $ns, id: mark})
    ON CREATE SET m.type = 'tool_result', m.source = 'ingest', m.created_at = $now
  SET m.updated_at = $now
}

CALL (forgotten) {
  UNWIND $closes AS cl
  WITH cl WHERE NOT cl.session_id IN forgotten
  MATCH (:ErrorPattern {ns: $ns, id: cl.error_id})-[r:IN_SESSION]->(:Session {ns: $ns, id: cl.session_id})
  SET r.open = false
}

CALL (forgotten) {
  UNWIND $recoveries AS rc
  WITH rc WHERE NOT rc.session_id IN forgotten
  MATCH (e:ErrorPattern {ns: $ns, id: rc.error_id})-[r:IN_SESSION]->(s:Session {ns: $ns, id: rc.session_id})
  CALL (r, rc) {
    WITH r, rc WHERE rc.kind = 'declared'
    SET r.declared_fix = rc.fix_id
  }
  CALL (e, r, s, rc) {
    WITH e, r, s, rc WHERE rc.kind = 'recovery'
    SET r.recovery_fix = rc.fix_id, r.held = rc.held, r.declared_fix = null, r.open = false,
        r.recovered_at = CASE WHEN rc.fresh THEN $now ELSE r.recovered_at END
    WITH e, s, rc WHERE rc.fresh
    // A new recovery of the tool in the session supersedes the older ones: only it can be held.
    MATCH (s)<-[o:IN_SESSION]-(other:ErrorPattern {tool: rc.tool})
    WHERE other <> e AND o.recovery_fix IS NOT NULL
    SET o.held = true
  }
}
RETURN errors, resolved, dropped_fixes

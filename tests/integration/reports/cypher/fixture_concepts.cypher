// Test fixture: a namespace of memories and the concepts they mention, written the way the
// concept writer does (Concept {ns, id, key, name, kind, df, ns_key}, (memory)-[:MENTIONS]->(Concept)).
// Params: ns, ns_key, other (a second namespace), now, old (an older timestamp).
// Memories: m1..m6 (Message), k1, k2 (Knowledge), e1 (ErrorPattern), f1 (Fix). Mentions:
//   caroline (entity)       m1 m2 m3 m4 m5 m6 k1 k2   df 8  (the speaker: in most memories)
//   support group (phrase)  m1 m2 k1                  df 3
//   melanie (entity)        m1 m2 m3                  df 3
//   pottery class (phrase)  m3 m4                     df 2
//   deploy (phrase)         m5 e1 f1                  df 3
//   timeout (phrase)        e1 f1                     df 2
//   painting (phrase)       m6                        df 1
// plus a memory of namespace `other` that (wrongly) mentions support group and melanie: it must not count.
UNWIND [
  {label: 'Message', id: 'm1', text: 'Caroline went to the LGBTQ support group with Melanie', ts: $old},
  {label: 'Message', id: 'm2', text: 'Melanie asked Caroline about the support group', ts: $now},
  {label: 'Message', id: 'm3', text: 'Caroline and Melanie signed up for a pottery class', ts: $now},
  {label: 'Message', id: 'm4', text: 'Caroline loved the pottery class', ts: $now},
  {label: 'Message', id: 'm5', text: 'Caroline helped with the deploy', ts: $now},
  {label: 'Message', id: 'm6', text: 'Caroline is painting a sunrise', ts: $now},
  {label: 'Knowledge', id: 'k1', text: 'Caroline leads a support group'},
  {label: 'Knowledge', id: 'k2', text: 'Caroline is a counsellor'},
  {label: 'ErrorPattern', id: 'e1', text: 'deploy failed: timeout after 30 s'}
] AS row
CALL (row) {
  WITH row WHERE row.label = 'Message'
  CREATE (:Message {ns: $ns, id: row.id, text: row.text, role: 'Caroline', ts: row.ts, session: 'chat'})
}
CALL (row) {
  WITH row WHERE row.label = 'Knowledge'
  CREATE (:Knowledge {ns: $ns, id: row.id, content: row.text, type: 'fact', confidence: 0.8, is_active: true})
}
CALL (row) {
  WITH row WHERE row.label = 'ErrorPattern'
  CREATE (e:ErrorPattern {ns: $ns, id: row.id, pattern: row.text, tool: 'deployer', occurrences: 2,
                          last_seen: $now})
  CREATE (f:Fix {ns: $ns, id: 'f1', description: 'raise the deploy timeout', source: 'user'})  // the 10th memory
  CREATE (e)-[:RESOLVED_BY {confidence: 0.9, successes: 3, failures: 0}]->(f)
}
WITH count(*) AS memories
UNWIND [
  {id: 'c-caroline', key: 'caroline', name: 'Caroline', kind: 'entity', df: 8,
   by: ['m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'k1', 'k2']},
  {id: 'c-support', key: 'support group', name: 'support group', kind: 'phrase', df: 3, by: ['m1', 'm2', 'k1']},
  {id: 'c-melanie', key: 'melanie', name: 'Melanie', kind: 'entity', df: 3, by: ['m1', 'm2', 'm3']},
  {id: 'c-pottery', key: 'pottery class', name: 'pottery class', kind: 'phrase', df: 2, by: ['m3', 'm4']},
  {id: 'c-deploy', key: 'deploy', name: 'Deploy', kind: 'phrase', df: 3, by: ['m5', 'e1', 'f1']},
  {id: 'c-timeout', key: 'timeout', name: 'timeout', kind: 'phrase', df: 2, by: ['e1', 'f1']},
  {id: 'c-painting', key: 'painting', name: 'painting', kind: 'phrase', df: 1, by: ['m6']}
] AS row
CREATE (c:Concept {ns: $ns, id: row.id, key: row.key, name: row.name, kind: row.kind, df: row.df, ns_key: $ns_key})
WITH c, row
UNWIND row.by AS memory
MATCH (m {ns: $ns, id: memory})
WHERE m:Message OR m:Knowledge OR m:ErrorPattern OR m:Fix
CREATE (m)-[:MENTIONS]->(c)
WITH count(*) AS mentions
CREATE (x:Message {ns: $other, id: 'x1', text: 'support group with Melanie', role: 'Mallory', ts: $now})
WITH x, mentions
MATCH (c:Concept {ns: $ns}) WHERE c.key IN ['support group', 'melanie']
CREATE (x)-[:MENTIONS]->(c)
RETURN mentions

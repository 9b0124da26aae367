// kgmem graph schema (docs/concepts.md describes it). Applied by `kgmem init`; every statement is
// idempotent (IF NOT EXISTS), so re-running it is safe. Bump SCHEMA_VERSION in
// kgmem/graph/schema.py when this file changes.

// Uniqueness on (ns, id) for every label: deterministic ids + MERGE never duplicate.
CREATE CONSTRAINT tool_key IF NOT EXISTS FOR (n:Tool) REQUIRE (n.ns, n.id) IS UNIQUE;
CREATE CONSTRAINT session_key IF NOT EXISTS FOR (n:Session) REQUIRE (n.ns, n.id) IS UNIQUE;
CREATE CONSTRAINT error_pattern_key IF NOT EXISTS FOR (n:ErrorPattern) REQUIRE (n.ns, n.id) IS UNIQUE;
CREATE CONSTRAINT fix_key IF NOT EXISTS FOR (n:Fix) REQUIRE (n.ns, n.id) IS UNIQUE;
CREATE CONSTRAINT knowledge_key IF NOT EXISTS FOR (n:Knowledge) REQUIRE (n.ns, n.id) IS UNIQUE;
CREATE CONSTRAINT entity_key IF NOT EXISTS FOR (n:Entity) REQUIRE (n.ns, n.id) IS UNIQUE;
CREATE CONSTRAINT message_key IF NOT EXISTS FOR (n:Message) REQUIRE (n.ns, n.id) IS UNIQUE;
CREATE CONSTRAINT function_key IF NOT EXISTS FOR (n:Function) REQUIRE (n.ns, n.id) IS UNIQUE;
// Bulk ingest (kgmem ingest): marks of tool-result events already applied, for idempotent re-runs.
CREATE CONSTRAINT ingested_event_key IF NOT EXISTS FOR (n:IngestedEvent) REQUIRE (n.ns, n.id) IS UNIQUE;
// The concept graph (docs/concept-graph.md): one Concept per normalised key and namespace.
CREATE CONSTRAINT concept_key IF NOT EXISTS FOR (n:Concept) REQUIRE (n.ns, n.id) IS UNIQUE;
CREATE CONSTRAINT schema_meta_key IF NOT EXISTS FOR (n:KgmemSchema) REQUIRE n.id IS UNIQUE;

// Lookup indexes used by the queries in cypher/.
CREATE INDEX tool_name IF NOT EXISTS FOR (n:Tool) ON (n.ns, n.name);
CREATE INDEX session_key_lookup IF NOT EXISTS FOR (n:Session) ON (n.ns, n.key);
CREATE INDEX error_pattern_tool IF NOT EXISTS FOR (n:ErrorPattern) ON (n.ns, n.tool);
CREATE INDEX error_pattern_category IF NOT EXISTS FOR (n:ErrorPattern) ON (n.ns, n.category);
CREATE INDEX error_pattern_last_seen IF NOT EXISTS FOR (n:ErrorPattern) ON (n.ns, n.last_seen);
CREATE INDEX knowledge_type IF NOT EXISTS FOR (n:Knowledge) ON (n.ns, n.type);
CREATE INDEX knowledge_active IF NOT EXISTS FOR (n:Knowledge) ON (n.ns, n.is_active);
CREATE INDEX entity_name IF NOT EXISTS FOR (n:Entity) ON (n.ns, n.name);
CREATE INDEX message_ref IF NOT EXISTS FOR (n:Message) ON (n.ns, n.ref);
CREATE INDEX function_qualname IF NOT EXISTS FOR (n:Function) ON (n.ns, n.qualname);
CREATE INDEX concept_lookup IF NOT EXISTS FOR (n:Concept) ON (n.ns, n.key);
// Nodes whose vector is not in Chroma yet (repaired on the next write or by `kgmem reindex`).
CREATE INDEX error_pattern_pending IF NOT EXISTS FOR (n:ErrorPattern) ON (n.vector_pending);
CREATE INDEX knowledge_pending IF NOT EXISTS FOR (n:Knowledge) ON (n.vector_pending);
CREATE INDEX message_pending IF NOT EXISTS FOR (n:Message) ON (n.vector_pending);
// Analysis (issue 4): exact-text dedup of knowledge; entity vectors not yet in Chroma.
CREATE INDEX knowledge_norm IF NOT EXISTS FOR (n:Knowledge) ON (n.ns, n.norm);
CREATE INDEX entity_pending IF NOT EXISTS FOR (n:Entity) ON (n.vector_pending);
// Knowledge over time (schema 10): what was valid when (as_of reads, the superseded report).
CREATE INDEX knowledge_valid_from IF NOT EXISTS FOR (n:Knowledge) ON (n.ns, n.valid_from);
CREATE INDEX knowledge_valid_until IF NOT EXISTS FOR (n:Knowledge) ON (n.ns, n.valid_until);
CREATE INDEX knowledge_superseded_at IF NOT EXISTS FOR (n:Knowledge) ON (n.superseded_at);
// Learning (issue 9): the template-equality leg of error matching (same core template ⇒ same error).
CREATE INDEX error_pattern_template IF NOT EXISTS FOR (n:ErrorPattern) ON (n.ns, n.template);

// The keyword (BM25) leg of retrieval: one Lucene index over the text properties, plus `ns` so a
// search can require its namespace inside Lucene (otherwise other namespaces fill the limit) and
// `role` so a speaker's name matches their turns. 'english' = Lucene's 33 stop words + Porter
// stemming; kgmem drops a longer stop-word list from the query (kgmem/retrieval/text.py).
// The first definition (kgmem_text: no ns/role) is dropped once; CREATE is idempotent by name.
// Schema 4: `ns_key` (kgmem.ids.ns_key, one exact token per namespace) is indexed too and the
// keyword leg requires it instead of the analysed `ns` (which "Team-A" shares with "team"); an
// index without it is dropped by kgmem.graph.schema before this file runs, and nodes written
// before are given their ns_key after it (kgmem init migrates an existing database).
DROP INDEX kgmem_text IF EXISTS;
CREATE FULLTEXT INDEX kgmem_fulltext IF NOT EXISTS
FOR (n:ErrorPattern|Fix|Knowledge|Entity|Message)
ON EACH [n.ns, n.ns_key, n.pattern, n.description, n.content, n.name, n.text, n.role]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}};

CALL db.awaitIndexes(300);

MERGE (m:KgmemSchema {id: 'schema'})
SET m.version = $version, m.applied_at = datetime();

// Learning engine: spool replay cursors (one per spool segment file; exactly-once replay).
CREATE CONSTRAINT kgmem_spool_key IF NOT EXISTS FOR (n:KgmemSpool) REQUIRE n.id IS UNIQUE;

// Forget (schema 11): tombstones by (ns, id), and whether a namespace has any entity-name tombstone
// (ns, label) — asked at every analysis write and spool replay (cypher/forget/screen.cypher). Made
// here, not by the first forget: creating an index invalidates every cached query plan.
CREATE CONSTRAINT kgmem_tombstone_key IF NOT EXISTS FOR (n:KgmemTombstone) REQUIRE (n.ns, n.id) IS UNIQUE;
CREATE INDEX kgmem_tombstone_label IF NOT EXISTS FOR (n:KgmemTombstone) ON (n.ns, n.label);

// Retrieval (issue 11): remembered searches, so feedback names a query_id from any process until the
// entry expires (expires_ms, epoch ms; pruned by query_log.cypher), and BQAR session overlays.
CREATE CONSTRAINT kgmem_query_key IF NOT EXISTS FOR (n:KgmemQuery) REQUIRE n.id IS UNIQUE;
CREATE INDEX kgmem_query_expires IF NOT EXISTS FOR (n:KgmemQuery) ON (n.expires_ms);
// A session's logged queries, marked ended at its merge (late feedback then goes global).
CREATE INDEX kgmem_query_session IF NOT EXISTS FOR (n:KgmemQuery) ON (n.ns, n.session);
CREATE CONSTRAINT kgmem_overlay_key IF NOT EXISTS FOR (n:KgmemOverlay) REQUIRE (n.ns, n.session, n.item_id) IS UNIQUE;
CREATE INDEX kgmem_overlay_session IF NOT EXISTS FOR (n:KgmemOverlay) ON (n.ns, n.session);
CREATE CONSTRAINT kgmem_session_state_key IF NOT EXISTS FOR (n:KgmemSessionState) REQUIRE (n.ns, n.session) IS UNIQUE;
CREATE INDEX kgmem_session_state_last IF NOT EXISTS FOR (n:KgmemSessionState) ON (n.last_ms);

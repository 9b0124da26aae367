  // Fragment (needs `mem`: the memory node, `concepts`: its concept rows or null): the memory's
  // MENTIONS edges become exactly `concepts` ([{id, key, name, kind}], kgmem.concepts.concept_rows),
  // and the df of every Concept gained or lost moves by one. null = concepts not extracted (the
  // extractor is off): the edges already there are kept. Re-writing the same memory adds nothing:
  // the edge is MERGEd and df moves only when an edge is created or deleted.
  CALL (mem, concepts) {
    WITH mem, concepts WHERE concepts IS NOT NULL
    MATCH (mem)-[concept_stale:MENTIONS]->(concept_gone:Concept)
    WHERE NOT concept_gone.id IN [c IN concepts | c.id]
    DELETE concept_stale
    SET concept_gone.df = concept_gone.df - 1
  }
  CALL (mem, concepts) {
    UNWIND coalesce(concepts, []) AS concept_row
    MERGE (concept:Concept {ns: $ns, id: concept_row.id})
      ON CREATE SET concept.key = concept_row.key, concept.name = concept_row.name, concept.kind = concept_row.kind, concept.df = 0, concept.created_at = $now,
                    concept.ns_key = $ns_key
    MERGE (mem)-[mention:MENTIONS]->(concept)
      ON CREATE SET mention.created_at = $now, concept.df = concept.df + 1, concept.updated_at = $now,
                    concept.kind = CASE WHEN concept_row.kind = 'entity' THEN 'entity' ELSE concept.kind END
  }

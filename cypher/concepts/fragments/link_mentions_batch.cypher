  // Fragment, the batch form of link_mentions (needs `mentions`: [{mem: a memory node, concepts: its
  // concept rows}], one entry per memory; [{id, key, name, kind}], kgmem.concepts.concept_rows;
  // memories whose concepts were not extracted are left out): each memory's MENTIONS edges become
  // exactly its `concepts`, and every Concept the batch touches is written once — merged once, its
  // df moved once by the number of edges the batch created (or deleted) — instead of once per
  // mention: a speaker's name that 200 turns of a batch carry was 200 updates of one node.
  // df stays exact and idempotent: edges are created only where none exists (the memory's current
  // edges are read first), so re-writing the same memories adds no edge and moves no df.
  CALL (mentions) {
    UNWIND mentions AS mention
    WITH mention.mem AS mem, [c IN mention.concepts | c.id] AS keep
    MATCH (mem)-[concept_stale:MENTIONS]->(concept_gone:Concept)
    WHERE NOT concept_gone.id IN keep
    WITH concept_gone, collect(concept_stale) AS stale
    FOREACH (e IN stale | DELETE e)
    SET concept_gone.df = concept_gone.df - size(stale)
  }
  CALL (mentions) {
    // Grouped by concept: the memories that gain an edge to it (a memory's current edges are read
    // first, so only missing edges are created: no MERGE on the relationship, no second look).
    UNWIND mentions AS mention
    WITH mention.mem AS mem, mention.concepts AS concepts
    WITH mem, concepts, [(mem)-[:MENTIONS]->(concept_had:Concept) | concept_had.id] AS had
    UNWIND concepts AS concept_row
    WITH concept_row.id AS concept_id, collect(concept_row)[0] AS first,
         collect(CASE WHEN NOT concept_row.id IN had THEN {mem: mem, kind: concept_row.kind} END) AS gained
    MERGE (concept:Concept {ns: $ns, id: concept_id})
      ON CREATE SET concept.key = first.key, concept.name = first.name, concept.kind = first.kind, concept.df = 0,
                    concept.created_at = $now, concept.ns_key = $ns_key
    WITH concept, gained WHERE size(gained) > 0
    SET concept.df = concept.df + size(gained), concept.updated_at = $now,
        concept.kind = CASE WHEN any(g IN gained WHERE g.kind = 'entity') THEN 'entity' ELSE concept.kind END
    WITH concept, gained
    UNWIND gained AS gain
    WITH concept, gain.mem AS mem
    CREATE (mem)-[:MENTIONS {created_at: $now}]->(concept)
  }

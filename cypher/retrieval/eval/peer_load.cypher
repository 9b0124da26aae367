// benchmarks/locomo.py: the peer's (neo4j-graphrag) copy of one conversation's turns, on a label
// of its own so kgmem's nodes are untouched. Params: rows [{ref, ns, text, embedding}].
UNWIND $rows AS row
CREATE (n:LocomoPeerTurn {ref: row.ref, ns: row.ns, text: row.text})
WITH n, row
CALL db.create.setNodeVectorProperty(n, 'embedding', row.embedding)

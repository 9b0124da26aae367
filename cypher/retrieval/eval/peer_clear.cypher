// benchmarks/locomo.py: remove the peer's (neo4j-graphrag) copy of the turns. No params.
MATCH (n:LocomoPeerTurn)
DETACH DELETE n

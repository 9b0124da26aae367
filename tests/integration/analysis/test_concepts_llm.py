"""The LLM analyzer's triples link their subject and object to the concept graph (real SDK,
scripted HTTP transport, real stack): the Knowledge item MENTIONS the same Concept nodes as the
turns that name them, and df counts both."""

from __future__ import annotations

TRIPLE = {
    "type": "fact",
    "content": "Melanie takes pottery classes on Saturdays",
    "confidence": 0.9,
    "subject": "Melanie",
    "predicate": "takes",
    "object": "pottery classes",
}
TURNS = [
    ("Melanie", "I signed up for a pottery class at the community center!"),
    ("Caroline", "That sounds lovely, Mel. What will you make?"),
    ("Melanie", "Bowls first. The pottery class meets every Saturday."),
    ("Caroline", "I am going to the support group again tonight."),
    ("Melanie", "Good luck, and tell me how it goes."),
]


def test_llm_triples_link_subject_and_object_concepts(make_client, scripted, asettings, q, ns):
    mem = make_client(generator=scripted.generator(asettings))
    scripted.then(scripted.items(TRIPLE))
    for i, (role, text) in enumerate(TURNS):
        mem.turn(session="s1", role=role, text=text, ref=str(i))
    mem.end_session("s1")
    assert mem.wait_for_analysis(60)

    rows = q(
        "MATCH (k:Knowledge {ns: $ns})-[:MENTIONS]->(c:Concept) RETURN k.content AS content, "
        "c.key AS key, c.kind AS kind"
    )
    keys = {r["key"]: r["kind"] for r in rows if r["content"] == TRIPLE["content"]}
    assert keys.get("melanie") == "entity" and "pottery class" in keys
    # one Concept node per key: the turns that name "pottery class" and the item share it
    shared = q(
        "MATCH (c:Concept {ns: $ns, key: 'pottery class'})<-[:MENTIONS]-(m) "
        "RETURN c.df AS df, collect(labels(m)[0]) AS labels"
    )
    assert len(shared) == 1
    assert sorted(shared[0]["labels"]) == ["Knowledge", "Message", "Message"]
    assert shared[0]["df"] == 3
    # "Mel" in Caroline's turn is the speaker Melanie, the triple's subject
    mel = q(
        "MATCH (c:Concept {ns: $ns, key: 'melanie'}) RETURN c.df AS df, COUNT { (c)<-[:MENTIONS]-(:Message) } AS turns"
    )
    assert mel == [{"df": mel[0]["turns"] + 1, "turns": mel[0]["turns"]}] and mel[0]["turns"] >= 1
    # the Entity triple is unchanged beside it
    assert q("MATCH (:Knowledge {ns: $ns})-[:ABOUT]->(e:Entity) RETURN e.name AS name ORDER BY name") == [
        {"name": "Melanie"},
        {"name": "pottery classes"},
    ]

"""Hostile and oversized text through the concept graph: turns, knowledge, errors and fixes.

Every accepted write reads back byte for byte, carries at most ``[concepts] max_per_memory``
concepts, and leaves every Concept's df equal to the number of memories mentioning it — for
empty-looking, emoji-only, other-script, control-character and 10,000-entity texts alike.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, example, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from kgmem.errors import ValidationError

EXAMPLES = int(os.environ.get("KGMEM_HYPOTHESIS_EXAMPLES", "40"))
CAP = 8
FRAGMENTS = [
    "Melanie",
    "Mel",
    "Paris",
    "support group",
    "😀",
    "🎉👍🏽",
    "北京烤鸭",
    "Привет Мария",
    "مرحبا",
    "שלום",
    "\u202e",
    "\x00",
    "'",
    '"',
    "\\",
    "$ns",
    "'}) DETACH DELETE n //",
    "the",
    "s's",
    "\u0301",
    " ",
    "\n",
    "ＬＧＢＴＱ",
    "Dr.",
    "U.S.A.",
    "C++",
    "e.g.",
    "...",
    "—",
]
hostile = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=10)), min_size=1, max_size=12).map("".join)
TEN_K_ENTITIES = " ".join(f"Acme{i} hired Alice{i} in Town{i}." for i in range(10_000))[:99_000]
common = hsettings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.fixture
def capped_mem(settings, driver, embedder):  # noqa: ANN001, ANN201
    """A client with a small concept cap and no background analysis."""
    from kgmem import KGMem

    capped = settings.model_copy(
        update={
            "analysis": settings.analysis.model_copy(update={"enabled": False}),
            "concepts": settings.concepts.model_copy(update={"max_per_memory": CAP}),
        }
    )
    client = KGMem(capped, driver=driver, embedder=embedder)
    yield client
    client.close()


def q(driver: Any, query: str, **params: Any) -> list[dict[str, Any]]:
    records, _, _ = driver.execute_query(query, parameters_=params)
    return [r.data() for r in records]


def check_graph(driver: Any, ns: str) -> None:
    per_memory = q(driver, "MATCH (m {ns: $ns})-[:MENTIONS]->(:Concept) RETURN m.id AS id, count(*) AS n", ns=ns)
    assert all(r["n"] <= CAP for r in per_memory)
    wrong = q(
        driver,
        "MATCH (c:Concept {ns: $ns}) WITH c, COUNT { (c)<-[:MENTIONS]-() } AS degree "
        "WHERE c.df <> degree RETURN c.key AS key, c.df AS df, degree",
        ns=ns,
    )
    assert wrong == []


@common
@given(text=hostile)
@example(text="😀🎉👍🏽")
@example(text="北京烤鸭很好吃。我们明天去上海。")
@example(text=TEN_K_ENTITIES)
@example(text="\x00\u202e Melanie's \x1b[31m C++ ＬＧＢＴＱ")
def test_turns_with_hostile_text_keep_bounded_concepts(capped_mem, driver, ns: str, text: str) -> None:  # noqa: ANN001
    try:
        mid = capped_mem.turn(session="s", role="Melanie", text=text, ref=str(abs(hash(text))))
    except ValidationError as exc:  # empty / whitespace-only text: named, nothing written
        assert "text" in str(exc)
        return
    assert q(driver, "MATCH (m:Message {ns: $ns, id: $id}) RETURN m.text AS t", ns=ns, id=mid) == [{"t": text}]
    check_graph(driver, ns)


def test_every_memory_kind_survives_a_ten_thousand_entity_document(capped_mem, driver, ns: str) -> None:  # noqa: ANN001
    capped_mem.turn(session="s", role="user", text=TEN_K_ENTITIES, ref="big")
    obs = capped_mem.tool_result("crm", {"q": 1}, error="LookupError: " + TEN_K_ENTITIES[:20_000], session="s")
    capped_mem.resolve(obs, "Re-sync " + TEN_K_ENTITIES[:5_000])
    item = capped_mem.add_knowledge(TEN_K_ENTITIES[:990], type="fact")
    capped_mem.flush()
    labels = {
        r["label"]: r["n"]
        for r in q(
            driver, "MATCH (m {ns: $ns})-[:MENTIONS]->(:Concept) RETURN labels(m)[0] AS label, count(*) AS n", ns=ns
        )
    }
    assert set(labels) == {"Message", "ErrorPattern", "Fix", "Knowledge"}
    assert all(n <= CAP for n in labels.values())
    assert q(driver, "MATCH (k:Knowledge {ns: $ns, id: $id}) RETURN size(k.content) AS n", ns=ns, id=item["id"]) == [
        {"n": len(TEN_K_ENTITIES[:990].strip())}
    ]
    check_graph(driver, ns)

"""Hostile text (quotes, backslashes, Lucene syntax, Cypher fragments, NUL, right-to-left marks,
combining characters, 1 MB strings) through every write path and every read path.

Accepted outcomes: success, or a kgmem :class:`~kgmem.errors.ValidationError` naming the field
(empty / whitespace-only identifiers, knowledge under 3 or over 1,000 characters, a turn over
100,000 characters — docs/reliability.md lists them). Anything else is a failure, and so is a
write that does not read back byte for byte or a search that changes the node count.

Example counts: ``KGMEM_HYPOTHESIS_EXAMPLES`` (default 40 per test); the seed is fixed
(``derandomize``) so CI runs the same inputs every time.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, example, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from reliability_support import node_count  # type: ignore[import-not-found]

from kgmem.errors import ValidationError

EXAMPLES = int(os.environ.get("KGMEM_HYPOTHESIS_EXAMPLES", "40"))
MEGABYTE = "ä" * 300_000 + "x'\"\\" * 100_000  # ~1 MB of UTF-8 (and 700 K characters)
FRAGMENTS = [
    "'",
    '"',
    "\\",
    "\\\\",
    "`",
    "*",
    "?",
    "~",
    "^2",
    "AND",
    "OR NOT",
    "+ns:other",
    'ns:"x"',
    "(",
    ")",
    "[a TO z]",
    "{",
    "}",
    "/regex/",
    "&&",
    "||",
    ":",
    "!",
    "-",
    "+",
    "'}) MATCH (n) DETACH DELETE n //",
    '" OR 1=1 --',
    "$ns",
    "${x}",
    "CALL db.clearQueryCaches()",
    "\x00",
    "\u202e",
    "\u200f",
    "\u200b",
    "\ufeff",
    "שלום",
    "مرحبا",
    "\u0301",
    "🔥",
    "\r\n",
    "\t",
    "%s",
    "{0}",
    "<script>alert(1)</script>",
    "NULL",
    "\x1f",
    "\x1b[31m",
]
hostile = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=12)), min_size=1, max_size=10).map("".join)
# No shrinking: it can take minutes on this stack; a failure prints its (unshrunk) example.
common = hsettings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)

TRIED: dict[str, int] = {}  # examples run per test, for docs/reliability.md (printed with -s)


def _accepting(fn: Any, *args: Any, **kwargs: Any) -> tuple[bool, Any]:
    """Run a write/read; (True, result) or (False, the ValidationError). Other errors propagate."""
    try:
        return True, fn(*args, **kwargs)
    except ValidationError as exc:
        assert str(exc), "a validation error must say what was wrong"
        return False, exc


def _count(name: str) -> None:
    TRIED[name] = TRIED.get(name, 0) + 1


@pytest.fixture
def quiet_mem(settings, driver, embedder):  # noqa: ANN001, ANN201
    """A client without background analysis (its extractor output is not under test here)."""
    from kgmem import KGMem

    quiet = settings.model_copy(update={"analysis": settings.analysis.model_copy(update={"enabled": False})})
    client = KGMem(quiet, driver=driver, embedder=embedder)
    yield client
    client.close()


@common
@given(tool=hostile, key=hostile, value=hostile, message=hostile, session=hostile, fix=hostile)
@example(tool=MEGABYTE[:20_000], key="k", value=MEGABYTE, message=MEGABYTE, session=MEGABYTE[:9_000], fix=MEGABYTE)
@example(tool="psql\x00", key="\x00", value="\x00", message="boom\x00", session="\x00s", fix="\x00fix")
def test_learning_paths(
    quiet_mem,
    driver,
    ns: str,
    tool: str,
    key: str,
    value: str,
    message: str,  # noqa: ANN001
    session: str,
    fix: str,
) -> None:
    _count("learning")
    ok, obs = _accepting(quiet_mem.tool_result, tool, {key: value}, error=message, session=session)
    if not ok:
        return
    assert obs is not None and not obs.spooled
    records, _, _ = driver.execute_query(
        "MATCH (e:ErrorPattern {ns: $ns, id: $id}) RETURN e.tool AS tool", ns=ns, id=obs.id
    )
    assert len(records) == 1
    ok, outcome = _accepting(quiet_mem.resolve, obs, fix, success=True)
    if ok:
        assert outcome.error_id == obs.id and outcome.successes >= 1
    _accepting(quiet_mem.correction, fix + " (user)", error=obs)
    # the same error again hands the fix back
    again = quiet_mem.tool_result(tool, {key: value}, error=message, session=session)
    assert again.id == obs.id and again.occurrences >= 2


@common
@given(session=hostile, role=hostile, text=hostile, ref=st.one_of(st.none(), hostile))
@example(session="s", role="user", text=MEGABYTE, ref=None)
@example(session="s", role="user", text=MEGABYTE[:99_000], ref=MEGABYTE[:10_000])
@example(session="s\x00", role="\u202euser", text="NUL \x00 inside", ref="\x00")
def test_turn_path(quiet_mem, driver, ns: str, session: str, role: str, text: str, ref: str | None) -> None:  # noqa: ANN001
    _count("turn")
    ok, mid = _accepting(quiet_mem.turn, session, role, text, ref=ref)
    if not ok:
        return
    records, _, _ = driver.execute_query(
        "MATCH (m:Message {ns: $ns, id: $id}) RETURN m.text AS text, m.role AS role", ns=ns, id=mid
    )
    assert [(r["text"], r["role"]) for r in records] == [(text, role)]  # byte for byte


@common
@given(content=hostile, kind=st.sampled_from(["fact", "preference", "pattern", "correction"]))
@example(content=MEGABYTE, kind="fact")
@example(content="quote ' \" \\ and \x00 NUL", kind="fact")
def test_knowledge_path(quiet_mem, ns: str, content: str, kind: str) -> None:  # noqa: ANN001
    _count("knowledge")
    before = {i["id"]: i["content"] for i in quiet_mem.learnings(include_inactive=True)}
    ok, item = _accepting(quiet_mem.add_knowledge, content, type=kind)
    if ok:
        assert item["confidence"] == 1.0
        # Judged against what is stored (docs/judging.md): new content is stored byte for byte; the same
        # statement once normalised (the examples share a namespace) promotes the stored item, unchanged.
        assert item["content"] == before.get(item["id"], content.strip())
    after = {i["id"]: i["content"] for i in quiet_mem.learnings(include_inactive=True)}
    assert {k: after.get(k) for k in before} == before  # nothing stored is lost or rewritten


@common
@given(
    lines=st.lists(
        st.fixed_dictionaries(
            {
                "type": st.sampled_from(["turn", "tool_result", "knowledge"]),
                "session": hostile,
                "role": hostile,
                "text": hostile,
                "tool": hostile,
                "error": hostile,
                "content": hostile,
            }
        ),
        min_size=1,
        max_size=4,
    )
)
def test_ingest_lines(quiet_mem, lines: list[dict[str, str]]) -> None:  # noqa: ANN001
    _count("ingest")
    events = []
    for line in lines:  # each line gets the fields of its type only
        fields = {
            "turn": ("session", "role", "text"),
            "tool_result": ("tool", "error", "session"),
            "knowledge": ("content",),
        }[line["type"]]
        events.append({"type": line["type"], **{f: line[f] for f in fields}})
    ok, report = _accepting(quiet_mem.ingest, events)
    if ok:
        assert report is not None


@common
@given(query=hostile)
@example(query=MEGABYTE)
@example(query=" ".join(f"word{i}" for i in range(300)))  # over Lucene's clause limit before the cap
@example(query='+ns:"other" OR *:* \\" ) ( [ { ~ ^9')
def test_search_and_context_never_write(quiet_mem, driver, ns: str, query: str) -> None:  # noqa: ANN001
    _count("search")
    if node_count(driver, ns) == 0:  # something to find, and to leak if the query escaped its quoting
        quiet_mem.turn(session="seed", role="user", text="the database refuses connections on port 5432", ref="seed")
        quiet_mem.add_knowledge("Restart pgbouncer when the pool is exhausted", type="pattern")
        quiet_mem.tool_result("psql", {}, error="FATAL: too many connections for role app", session="seed")
    before = node_count(driver, ns)
    ok, result = _accepting(quiet_mem.search, query, k=5)
    if ok:
        assert not result.failed_legs, result.failed_legs  # no leg may fail on the text of a query
        assert all(hit.id for hit in result.hits)
    _accepting(quiet_mem.context, query, max_tokens=200)
    assert node_count(driver, ns) == before


def test_print_examples_tried() -> None:
    """Runs last in this module (file order): the counts docs/reliability.md reports (``-s`` shows them)."""
    print("hypothesis examples tried:", TRIED)

"""Knowledge over time: a user states ten facts, then changes each of them a month later.

The conversation goes through ``KGMem.turn`` with the offline extractor (no key), every turn with its
``ts``. Then, for each fact, one question:

* ``current.first``: searching now, the first hit naming either value names the new one;
* ``as_of.first``: searching ``as_of`` a day between the two sessions, the first hit naming either value
  names the old one;
* ``superseded``: the old item is linked ``SUPERSEDED_BY`` to the new one (a change the judge detected),
  and ``history`` of the new item holds both.

``run(settings)`` returns the counts (out of ten); ``python -m benchmarks.knowledge_time`` prints them
(a private namespace on the Neo4j of your settings, deleted afterwards; Chroma in a temporary dir).
"""

from __future__ import annotations

import json
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgmem.config import ChromaSettings, Settings, load_settings
from kgmem.maintenance import delete_namespace


@dataclass(frozen=True)
class Change:
    """One fact: what the user said first, what they said a month later, the question, both values."""

    before: str
    after: str
    question: str
    old: str
    new: str


CHANGES: tuple[Change, ...] = (
    Change("My doctor is Dr. Patel.", "My doctor is Dr. Okafor.", "Who is my doctor?", "Patel", "Okafor"),
    Change(
        "My favourite editor is Vim.",
        "My favourite editor is Helix.",
        "What is my favourite editor?",
        "Vim",
        "Helix",
    ),
    Change("I live in Lisbon.", "I live in Berlin.", "Where do I live?", "Lisbon", "Berlin"),
    Change("I work at Acme Corp.", "I work at Globex.", "Where do I work?", "Acme", "Globex"),
    Change(
        "The API server listens on port 8080.",
        "The API server listens on port 9090.",
        "Which port does the API server listen on?",
        "8080",
        "9090",
    ),
    Change(
        "The database runs PostgreSQL 14.",
        "The database runs PostgreSQL 16.",
        "Which PostgreSQL version does the database run?",
        "14",
        "16",
    ),
    Change(
        "Our CI system is Jenkins.", "Our CI system is GitHub Actions.", "What is our CI system?", "Jenkins", "GitHub"
    ),
    Change("My manager is Priya.", "My manager is Tomás.", "Who is my manager?", "Priya", "Tomás"),
    Change("My car is a Honda Civic.", "My car is a Tesla Model 3.", "What car do I have?", "Honda", "Tesla"),
    Change(
        "My yoga class is on Tuesdays.",
        "My yoga class is on Thursdays.",
        "When is my yoga class?",
        "Tuesdays",
        "Thursdays",
    ),
)

BEFORE_TS = "2026-03-02T10:00:00+00:00"  # the first session (each turn a minute later)
AFTER_TS = "2026-04-02T10:00:00+00:00"  # a month later: every fact changed
BETWEEN = "2026-03-16T00:00:00+00:00"  # an as_of between the two


def turns(session: str, start: str, texts: list[str]) -> list[dict[str, str]]:
    """The user's turns of one session with an acknowledgement after each, a minute apart from ``start``."""
    from datetime import datetime, timedelta

    t0 = datetime.fromisoformat(start)
    out: list[dict[str, str]] = []
    for i, text in enumerate(texts):
        out.append(
            {"session": session, "role": "user", "text": text, "ts": (t0 + timedelta(minutes=2 * i)).isoformat()}
        )
        out.append(
            {
                "session": session,
                "role": "assistant",
                "text": "Noted.",
                "ts": (t0 + timedelta(minutes=2 * i + 1)).isoformat(),
            }
        )
    return out


def conversation() -> list[dict[str, str]]:
    """Both sessions' turns, in order."""
    return turns("march", BEFORE_TS, [c.before for c in CHANGES]) + turns("april", AFTER_TS, [c.after for c in CHANGES])


def tell(mem: Any) -> None:
    """Feed the conversation to ``mem`` (a KGMem) and wait for its analysis."""
    for i, t in enumerate(conversation()):
        mem.turn(session=t["session"], role=t["role"], text=t["text"], ts=t["ts"], ref=f"t{i}")
        if i == len(CHANGES) * 2 - 1:
            mem.end_session("march")
            mem.wait_for_analysis(120)
    mem.end_session("april")
    mem.wait_for_analysis(120)


def first_named(hits: list[Any], change: Change) -> str | None:
    """``"new"`` / ``"old"``: which value the first hit naming either names (None: neither appears)."""
    for hit in hits:
        text = hit.text
        has_old, has_new = change.old in text, change.new in text
        if has_new and not has_old:
            return "new"
        if has_old and not has_new:
            return "old"
    return None


def measure(mem: Any, k: int = 10, kinds: list[str] | None = None) -> dict[str, Any]:
    """Per change: which value ranks first now and as of ``BETWEEN``, and whether it was superseded."""
    items = mem.learnings(include_inactive=True)
    rows = []
    for c in CHANGES:
        now = first_named(mem.search(c.question, k=k, kinds=kinds).hits, c)
        then = first_named(mem.search(c.question, k=k, kinds=kinds, as_of=BETWEEN).hits, c)
        new_items = [i for i in items if c.new in i["content"] and c.old not in i["content"]]
        chain_ok = False
        for item in new_items:
            chain = mem.history(item["id"])
            if any(c.old in x["content"] for x in chain) and chain[-1]["id"] == item["id"]:
                chain_ok = True
        rows.append({"question": c.question, "now": now, "as_of": then, "superseded": chain_ok})
    return {
        "rows": rows,
        "current.first": sum(r["now"] == "new" for r in rows),
        "as_of.first_old": sum(r["as_of"] == "old" for r in rows),
        "superseded": sum(r["superseded"] for r in rows),
    }


def run(settings: Settings, quick: bool = False) -> dict[str, float | int | str]:
    """The figures (out of ten): all kinds of hits and knowledge hits only."""
    from kgmem import KGMem

    ns = f"bench-time-{uuid.uuid4().hex[:8]}"
    with tempfile.TemporaryDirectory() as tmp:
        s = settings.model_copy(
            update={
                "namespace": ns,
                "chroma": ChromaSettings(path=Path(tmp) / "chroma"),
                "home": Path(tmp) / "home",
                "anthropic": settings.anthropic.model_copy(update={"api_key": None}),
            }
        )
        mem = KGMem(s)
        try:
            tell(mem)
            every = measure(mem)
            know = measure(mem, kinds=["knowledge"])
            out: dict[str, float | int | str] = {"changes": len(CHANGES)}
            for name, m in (("all", every), ("knowledge", know)):
                for key in ("current.first", "as_of.first_old", "superseded"):
                    out[f"{name}.{key}"] = m[key]
            out["rows"] = json.dumps(every["rows"])
            return out
        finally:
            delete_namespace(mem.graph, None, ns)
            mem.close()


def main() -> int:
    figures = run(load_settings())
    rows = json.loads(str(figures.pop("rows")))
    for r in rows:
        print(f"{r['question']:<50} now={r['now']}  as_of={r['as_of']}  superseded={r['superseded']}")
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

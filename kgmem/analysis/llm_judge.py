"""The LLM as the judge of pairs no extraction call saw: one adjudication call for many pairs.

Items an extraction call produced carry the model's own verdict (:mod:`kgmem.analysis.store`). The
rest — ingested knowledge, offline-extracted items while a key is set, and whatever else reaches the
store without the model having read the stored items — is decided here: the pairs of one batch go
in one prompt (up to :data:`MAX_PAIRS` per call), numbered, and the answer names them by number, so
nothing of the model's text reaches Cypher. A pair the answer leaves out, an unreadable answer or a
failed call falls back to the offline judge for those pairs, and the failure is counted.

A judgement counts once: a pair already decided (the same two texts, in either session) is answered
from this judge's memory, so a retried batch neither calls the model again nor counts the pair twice.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kgmem.analysis.judge import Judge, Pair, Verdict
from kgmem.analysis.schema import normalise_text
from kgmem.errors import GeneratorError
from kgmem.llm import TextGenerator

log = logging.getLogger(__name__)

MAX_PAIRS = 25  # pairs per call: a bounded prompt and answer
_MAX_CHARS = 500  # per statement in the prompt
_REMEMBERED = 4096  # decided pairs kept, so a retry is answered without a call
_JSON_OBJECT = re.compile(r"\{.*\}", re.DOTALL)

SYSTEM = (
    "You compare statements a user made to an AI agent in different sessions, to keep the agent's "
    "memory consistent. Answer with JSON only."
)
_PROMPT = """Each pair has an OLD statement (stored earlier) and a NEW one (said later).
Decide what NEW is to OLD:
- "paraphrase": the same fact, however reworded: the same subject, the same stance, the same values.
- "contradiction": both cannot be true of the same subject at the same time: another value for the
  same thing, a negation, a reversed preference, a changed status, a correction.
- "distinct": both can be true at once: another subject, another thing, or one adds a fact.

{pairs}

Answer with one JSON object, one entry per pair:
{{"verdicts": [{{"pair": 1, "relation": "paraphrase"}}, ...]}}"""


class _Entry(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)

    pair: int = Field(ge=1)
    relation: str


class _Answer(BaseModel):
    model_config = ConfigDict(extra="ignore")

    verdicts: list[_Entry]


_RELATIONS = frozenset({"paraphrase", "contradiction", "distinct"})


@dataclass
class JudgeCounters:
    """What the LLM judge has done: calls made, pairs decided (each once), calls that failed, pairs
    the offline judge decided instead."""

    calls: int = 0
    pairs: int = 0
    failures: int = 0
    fallbacks: int = 0

    def as_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


def build_prompt(pairs: Sequence[Pair]) -> str:
    """The adjudication prompt for ``pairs``, numbered from 1."""
    body = "\n".join(
        f'<pair number="{n}">\n<old>{p.old.content[:_MAX_CHARS]}</old>\n'
        f"<new>{p.new.content[:_MAX_CHARS]}</new>\n</pair>"
        for n, p in enumerate(pairs, 1)
    )
    return _PROMPT.format(pairs=body)


def parse_answer(text: str, count: int) -> dict[int, str] | None:
    """{pair number: relation} of an answer, or None when it is not the asked JSON object. Entries
    naming a number outside 1..count or an unknown relation are dropped (those pairs fall back)."""
    found = _JSON_OBJECT.search(text or "")
    if not found:
        return None
    try:
        answer = _Answer.model_validate(json.loads(found.group(0)))
    except (json.JSONDecodeError, ValidationError):
        return None
    out: dict[int, str] = {}
    for entry in answer.verdicts:
        relation = entry.relation.strip().lower()
        if entry.pair <= count and relation in _RELATIONS:
            out.setdefault(entry.pair, relation)
    return out


class LLMJudge:
    """Batched adjudication by a :class:`~kgmem.llm.TextGenerator`; ``fallback`` decides what it cannot."""

    def __init__(self, generator: TextGenerator, fallback: Judge, max_pairs: int = MAX_PAIRS) -> None:
        if max_pairs < 1:
            raise ValueError(f"max_pairs: must be at least 1; got {max_pairs}")
        self.generator = generator
        self.fallback = fallback
        self.max_pairs = max_pairs
        self.name = f"llm:{getattr(generator, 'name', type(generator).__name__)}"
        self.counters = JudgeCounters()
        self._decided: OrderedDict[tuple[str, str], str] = OrderedDict()
        self._lock = threading.Lock()

    def verdicts(self, pairs: Sequence[Pair]) -> list[Verdict]:
        """One verdict per pair: remembered ones first, the rest asked in calls of ``max_pairs``."""
        keys = [_key(p) for p in pairs]
        with self._lock:
            known = {k: self._decided[k] for k in keys if k in self._decided}
        ask: dict[tuple[str, str], Pair] = {}
        for key, pair in zip(keys, pairs):
            if key not in known:
                ask.setdefault(key, pair)
        todo = list(ask.items())
        for start in range(0, len(todo), self.max_pairs):
            known.update(self._ask(todo[start : start + self.max_pairs]))
        missing = [i for i, k in enumerate(keys) if k not in known]
        fallen = dict(zip(missing, self.fallback.verdicts([pairs[i] for i in missing]))) if missing else {}
        with self._lock:
            self.counters.fallbacks += len(missing)
        return [
            fallen[i] if i in fallen else Verdict(known[key], "llm", float(pair.similarity))  # type: ignore[arg-type]
            for i, (key, pair) in enumerate(zip(keys, pairs))
        ]

    def _ask(self, chunk: list[tuple[tuple[str, str], Pair]]) -> dict[tuple[str, str], str]:
        pairs = [p for _, p in chunk]
        with self._lock:
            self.counters.calls += 1
        try:
            text = self.generator.generate(build_prompt(pairs), system=SYSTEM)
        except GeneratorError as exc:
            self._failed("call failed: %s", exc)
            return {}
        parsed = parse_answer(text, len(pairs))
        if parsed is None:
            self._failed("unreadable answer %r", text[:200])
            return {}
        decided = {chunk[n - 1][0]: relation for n, relation in parsed.items()}
        with self._lock:
            for key, relation in decided.items():
                if key not in self._decided:
                    self.counters.pairs += 1
                self._decided[key] = relation
                self._decided.move_to_end(key)
            while len(self._decided) > _REMEMBERED:
                self._decided.popitem(last=False)
        return decided

    def _failed(self, message: str, detail: object) -> None:
        with self._lock:
            self.counters.failures += 1
        log.warning("knowledge adjudication: " + message + "; the offline judge decides", detail)


def _key(pair: Pair) -> tuple[str, str]:
    return normalise_text(pair.new.content), normalise_text(pair.old.content)

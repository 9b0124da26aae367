"""What conversation analysis costs in LLM calls and tokens, per 1,000 LoCoMo turns.

The LoCoMo dev conversations are ingested turn by turn through ``KGMem.turn()`` and ``end_session()``
on the real stack (Neo4j, Chroma, the embedding model), with the default ``[analysis]`` settings: the
analysis buffer batches turns into windows and runs the analyzer (one LLM call per window) and, at the
end of a session, the session learner (one more call). The LLM is the real ``anthropic`` or ``openai``
SDK over a mocked transport that counts every request and answers valid JSON: one item quoting the
window's first turn for a window, nothing for a session's review, "distinct" for every pair the
knowledge judge adjudicates (pairs no extraction call saw). Tokens are estimated at 4
characters per token (``kgmem.analysis.buffer.estimate_tokens``) of the request's system prompt and
messages — a real tokenizer differs by some tenths; the characters are reported exactly.

Figures per provider (``anthropic.*``, ``openai.*``): LLM calls, prompt and completion tokens and
prompt characters per 1,000 turns, calls per turn, and the window / session / adjudication split. Services that
extract on every message make one or more calls per turn (1,000 or more per 1,000 turns).

    python -m benchmarks.llm_cost [--quick] [--data DIR/locomo-dev.json]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import tempfile
import threading
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgmem.config import Settings

log = logging.getLogger(__name__)

PROVIDERS = ("anthropic", "openai")
PER = 1000  # figures per this many turns


def _shared_data() -> Path:
    explicit = os.environ.get("KGMEM_BENCH_DATA")
    if explicit:
        return Path(explicit)
    for parent in Path(__file__).resolve().parents:
        if (parent / "shared" / "data").is_dir():
            return parent / "shared" / "data"
    return Path(__file__).resolve().parents[2] / "shared" / "data"


DEFAULT_DATA = _shared_data() / "locomo-dev.json"


# -- data ---------------------------------------------------------------------------------------
@dataclass
class Session:
    key: str
    turns: list[tuple[str, str, str]]  # (speaker, text, dia_id)


def load_sessions(path: Path, quick: bool) -> list[tuple[str, list[Session]]]:
    """(sample_id, its sessions in order) per LoCoMo conversation; only the first one when ``quick``."""
    if not path.is_file():
        raise FileNotFoundError(f"{path}: the LoCoMo dev file is not there (set KGMEM_BENCH_DATA)")
    conversations = []
    for sample in json.loads(path.read_text(encoding="utf-8")):
        conv = sample["conversation"]
        sessions, n = [], 1
        while f"session_{n}" in conv:
            turns = []
            for t in conv[f"session_{n}"]:
                text = t["text"] + (f" [shares an image: {t['blip_caption']}]" if t.get("blip_caption") else "")
                turns.append((t["speaker"], text, t["dia_id"]))
            sessions.append(Session(f"session_{n}", turns))
            n += 1
        conversations.append((sample["sample_id"], sessions))
    return conversations[:1] if quick else conversations


# -- the counting LLM endpoint ------------------------------------------------------------------
@dataclass
class Counter:
    """Every request the mocked endpoint answered."""

    requests: int = 0
    window_requests: int = 0
    session_requests: int = 0
    adjudication_requests: int = 0
    prompt_chars: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)


_PAIR = re.compile(r'<pair number="(\d+)">')


def _kind(prompt: str) -> str:
    """Which of the analysis calls a request is: an extraction ``window``, a ``session`` review, or an
    ``adjudication`` of stored pairs no extraction call saw (the knowledge judge)."""
    from kgmem.analysis.prompt import SESSION_NOTE

    if prompt.startswith(SESSION_NOTE):
        return "session"
    if _PAIR.search(prompt):
        return "adjudication"
    return "window"


def _answer(prompt: str) -> Any:
    """The mocked model's JSON answer: items for a window, none for a session review, every
    adjudicated pair ``distinct`` (both statements kept)."""
    kind = _kind(prompt)
    if kind == "adjudication":
        return {"verdicts": [{"pair": int(n), "relation": "distinct"} for n in _PAIR.findall(prompt)]}
    return _answer_items(prompt) if kind == "window" else []


def _answer_items(prompt: str) -> list[dict[str, Any]]:
    """A valid extraction answer: one fact quoting the window's first turn; none for a session review."""
    from kgmem.analysis.prompt import SESSION_NOTE

    if prompt.startswith(SESSION_NOTE):
        return []
    lines = prompt.split("## Conversation\n", 1)[-1].splitlines()
    first = lines[0] if lines else ""
    speaker, _, text = first.partition("] ")
    text = text.strip()[:300]
    if len(text) < 3:
        return []
    return [{"type": "fact", "content": f"{speaker.lstrip('[')} said: {text}", "confidence": 0.8}]


def _handler(provider: str, counter: Counter) -> Any:
    from kgmem.analysis.buffer import estimate_tokens

    def handle(request: Any) -> Any:
        http = _http()
        body = json.loads(request.content)
        messages = body["messages"]
        system = body.get("system") or ""
        if isinstance(system, list):  # Anthropic system blocks
            system = "".join(block.get("text", "") for block in system)
        parts = [system] + [m["content"] for m in messages if isinstance(m.get("content"), str)]
        prompt_text = "\n".join(parts)
        user = messages[-1]["content"]
        payload = _answer(user)
        answer = json.dumps(payload) if provider == "anthropic" else json.dumps({"answer": payload})
        prompt_tokens, completion_tokens = estimate_tokens(prompt_text), estimate_tokens(answer)
        with counter.lock:
            counter.requests += 1
            kind = _kind(user)
            setattr(counter, f"{kind}_requests", getattr(counter, f"{kind}_requests") + 1)
            counter.prompt_chars += len(prompt_text)
            counter.prompt_tokens += prompt_tokens
            counter.completion_tokens += completion_tokens
            n = counter.requests
        if provider == "anthropic":
            return http.Response(
                200,
                json={
                    "id": f"msg_{n}",
                    "type": "message",
                    "role": "assistant",
                    "model": body["model"],
                    "content": [{"type": "text", "text": answer}],
                    "stop_reason": "end_turn",
                    "stop_sequence": None,
                    "usage": {"input_tokens": prompt_tokens, "output_tokens": completion_tokens},
                },
            )
        return http.Response(
            200,
            json={
                "id": f"chatcmpl-{n}",
                "object": "chat.completion",
                "created": 0,
                "model": body["model"],
                "choices": [{"index": 0, "message": {"role": "assistant", "content": answer}, "finish_reason": "stop"}],
                "usage": {
                    "prompt_tokens": prompt_tokens,
                    "completion_tokens": completion_tokens,
                    "total_tokens": prompt_tokens + completion_tokens,
                },
            },
        )

    return handle


def _http() -> Any:
    try:  # the SDKs' HTTP library: httpx2 for anthropic>=2 (openai takes either), httpx before
        import httpx2

        return httpx2
    except ImportError:  # pragma: no cover
        import httpx

        return httpx


def counting_generator(provider: str, counter: Counter) -> Any:
    """The provider's real generator (its SDK), its transport the counting mock."""
    from pydantic import SecretStr

    from kgmem.llm import LLMConfig, build_generator

    http = _http()
    config = LLMConfig(
        provider=provider,
        model="claude-sonnet-4-5" if provider == "anthropic" else "llama3.1:8b",
        api_key=SecretStr("benchmark") if provider == "anthropic" else None,
        base_url=None if provider == "anthropic" else "http://127.0.0.1:11434/v1",
    )
    return build_generator(config, http_client=http.Client(transport=http.MockTransport(_handler(provider, counter))))


# -- the run ------------------------------------------------------------------------------------
def ingest(
    base: Settings, provider: str, sample_id: str, sessions: list[Session], driver: Any, embedder: Any
) -> tuple[Counter, dict[str, Any]]:
    """One conversation through the analysis pipeline with ``provider``'s counting generator."""
    from kgmem import KGMem
    from kgmem.maintenance import delete_namespace

    counter = Counter()
    ns = f"bench-llm-cost-{provider}-{sample_id}-{uuid.uuid4().hex[:8]}"
    with tempfile.TemporaryDirectory() as tmp:
        # A queue that never fills: a dropped window would be a call not counted.
        analysis = base.analysis.model_copy(update={"queue_size": 100_000, "enabled": True})
        settings = base.model_copy(
            update={
                "namespace": ns,
                "analysis": analysis,
                "chroma": base.chroma.model_copy(update={"path": Path(tmp) / "chroma"}),
                "home": Path(tmp) / "home",
            }
        )
        generator = counting_generator(provider, counter)
        mem = KGMem(settings, driver=driver, embedder=embedder, generator=generator)
        try:
            for session in sessions:
                for speaker, text, ref in session.turns:
                    mem.turn(session=session.key, role=speaker, text=text, ref=ref)
                mem.end_session(session.key)
            if not mem.wait_for_analysis(1800):
                raise TimeoutError(f"{ns}: analysis did not finish in 30 minutes")
            stats = mem.analysis_stats()
        finally:
            mem.close()
            delete_namespace(mem.graph, None, ns)
    return counter, stats


def run(settings: Settings, quick: bool = False, data: Path | None = None) -> dict[str, float | int | str]:
    """LLM calls and tokens per 1,000 LoCoMo turns for each provider (``quick``: one conversation)."""
    from kgmem.graph import GraphStore, connect
    from kgmem.graph.schema import apply_schema
    from kgmem.vectors import Embedder

    conversations = load_sessions(data or DEFAULT_DATA, quick)
    turns = sum(len(s.turns) for _, sessions in conversations for s in sessions)
    n_sessions = sum(len(sessions) for _, sessions in conversations)
    figures: dict[str, float | int | str] = {
        "turns": turns,
        "sessions": n_sessions,
        "conversations": len(conversations),
        "turn_threshold": settings.analysis.turn_threshold,
        "token_estimate": "4 characters per token",
    }
    with connect(settings) as driver:
        apply_schema(GraphStore(driver, settings.neo4j.database))
        embedder = Embedder(settings.embedding, settings.models_dir)
        for provider in PROVIDERS:
            total = Counter()
            usage = {"calls": 0, "failures": 0, "input_tokens": 0, "output_tokens": 0}
            dropped = inserted = 0
            for sample_id, sessions in conversations:
                counter, stats = ingest(settings, provider, sample_id, sessions, driver, embedder)
                for name in (
                    "requests",
                    "window_requests",
                    "session_requests",
                    "adjudication_requests",
                    "prompt_chars",
                ):
                    setattr(total, name, getattr(total, name) + getattr(counter, name))
                total.prompt_tokens += counter.prompt_tokens
                total.completion_tokens += counter.completion_tokens
                for name in usage:
                    usage[name] += int(stats.get("usage", {}).get(name, 0))
                dropped += int(stats.get("dropped", 0))
                inserted += int(stats.get("inserted", 0))
            scale = PER / turns
            figures.update(
                {
                    f"{provider}.calls_per_1k_turns": round(total.requests * scale, 1),
                    f"{provider}.window_calls_per_1k_turns": round(total.window_requests * scale, 1),
                    f"{provider}.session_calls_per_1k_turns": round(total.session_requests * scale, 1),
                    f"{provider}.adjudication_calls_per_1k_turns": round(total.adjudication_requests * scale, 1),
                    f"{provider}.calls_per_turn": round(total.requests / turns, 3),
                    f"{provider}.prompt_tokens_per_1k_turns": round(total.prompt_tokens * scale),
                    f"{provider}.completion_tokens_per_1k_turns": round(total.completion_tokens * scale),
                    f"{provider}.prompt_chars_per_1k_turns": round(total.prompt_chars * scale),
                    f"{provider}.prompt_tokens_per_call": round(total.prompt_tokens / max(total.requests, 1)),
                    # What the client reports (analysis_stats()["usage"]) must match the transport's count.
                    f"{provider}.usage_calls": usage["calls"],
                    f"{provider}.usage_input_tokens": usage["input_tokens"],
                    f"{provider}.usage_failures": usage["failures"],
                    f"{provider}.requests": total.requests,
                    f"{provider}.items_inserted": inserted,
                    f"{provider}.dropped_windows": dropped,
                }
            )
            log.info("%s: %d requests for %d turns", provider, total.requests, turns)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="one conversation instead of all")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the LoCoMo dev file")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    from kgmem.config import load_settings

    figures = run(load_settings(), quick=args.quick, data=args.data)
    width = max(len(k) for k in figures)
    for key, value in figures.items():
        print(f"{key:<{width}}  {value}")


if __name__ == "__main__":
    main()

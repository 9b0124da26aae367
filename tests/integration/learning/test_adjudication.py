"""LLM adjudication of fuzzy error matches (kgmem/learning/adjudication.py) on the real stack:
real Neo4j, Chroma and embedding model, the real ``anthropic`` SDK with its HTTP transport
scripted (``scripted``, tests/integration/conftest.py)."""

from __future__ import annotations

import asyncio
import json

import pytest
from pydantic import SecretStr

from kgmem import KGMem
from kgmem.config import Settings

# Two wordings of Google's missing Application Default Credentials: one fix (`gcloud auth
# application-default login`), a match score of ~0.24 — below the threshold, inside the default band.
ADC = (
    "google.auth.exceptions.DefaultCredentialsError: Could not automatically determine credentials. Please set "
    "GOOGLE_APPLICATION_CREDENTIALS or explicitly create credentials and re-run the application."
)
ADC_REWORDED = (
    "Error: Your default credentials were not found. To set up Application Default Credentials, see "
    "https://cloud.google.com/docs/authentication/external/set-up-adc"
)
# A look-alike that needs another fix (a wrong host name vs a DNS outage): scored ~0.87, above the threshold.
DNS_WRONG = 'could not translate host name "db" to address: Name or service not known'
DNS_DOWN = 'could not translate host name "db" to address: Temporary failure in name resolution'


@pytest.fixture
def make(settings: Settings, driver, embedder, graph, scripted):
    made: list[KGMem] = []

    def build(band: float | None = None, llm: bool = True, scope: str | None = None) -> KGMem:
        key = SecretStr("sk-test-not-real") if llm else None  # no key: no generator, kgmem stays offline
        s = settings.model_copy(
            update={
                "anthropic": settings.anthropic.model_copy(update={"api_key": key, "max_retries": 0, "timeout_s": 5.0})
            }
        )
        learning = {k: v for k, v in (("adjudicate_band", band), ("adjudicate_scope", scope)) if v is not None}
        if learning:
            s = s.model_copy(update={"learning": s.learning.model_copy(update=learning)})
        client = KGMem(s, driver=driver, embedder=embedder, generator=scripted.generator(s) if llm else None)
        made.append(client)
        return client

    yield build
    for client in made:
        client.close()


def _fixes(obs) -> set[str]:
    return {f.description for f in obs.fixes}


def test_a_close_call_judged_the_same_gets_the_fix(make, scripted) -> None:
    mem = make()
    mem.resolve(mem.tool_result("gcloud", {}, error=ADC), "gcloud auth application-default login")
    scripted.then(("text", json.dumps({"same": [1]})))
    obs = mem.tool_result("gcloud", {}, error=ADC_REWORDED)
    assert "gcloud auth application-default login" in _fixes(obs)
    assert len(scripted.requests) == 1
    prompt = scripted.prompts()[0]
    assert "Your default credentials were not found" in prompt and "Could not automatically determine" in prompt


def test_without_an_answer_or_without_an_llm_the_model_decides(make, scripted) -> None:
    mem = make()
    mem.resolve(mem.tool_result("gcloud", {}, error=ADC), "gcloud auth application-default login")
    scripted.then(("text", "I think they might be related."))  # no JSON: the matching model's "no" stands
    assert "gcloud auth application-default login" not in _fixes(mem.tool_result("gcloud", {}, error=ADC_REWORDED))
    assert mem.learning.adjudicator is not None and mem.learning.adjudicator.failures == 1

    offline = make(llm=False)
    assert offline.learning.adjudicator is None
    # another tool: new patterns, candidates only among this client's own
    offline.resolve(offline.tool_result("gcloud-cli", {}, error=ADC), "gcloud auth application-default login")
    assert "gcloud auth application-default login" not in _fixes(
        offline.tool_result("gcloud-cli", {}, error=ADC_REWORDED)
    )
    assert len(scripted.requests) == 1  # only the online client's call


def test_a_look_alike_judged_different_is_not_linked(make, scripted) -> None:
    mem = make()  # scope "fuzzy" (default): the 0.87 link is the LLM's to confirm
    mem.resolve(mem.tool_result("psql", {}, error=DNS_WRONG), "fix the host name in DATABASE_URL")
    scripted.then(("text", json.dumps({"same": []})))
    obs = mem.tool_result("psql", {}, error=DNS_DOWN)
    assert "fix the host name in DATABASE_URL" not in _fixes(obs)
    assert len(scripted.requests) == 1
    assert "Temporary failure in name resolution" in scripted.prompts()[0]


def test_scope_close_leaves_confident_links_to_the_model(make, scripted) -> None:
    mem = make(scope="close")  # 0.87 is far above the threshold: not a close call, no LLM call
    mem.resolve(mem.tool_result("psql", {}, error=DNS_WRONG), "fix the host name in DATABASE_URL")
    obs = mem.tool_result("psql", {}, error=DNS_DOWN)
    assert "fix the host name in DATABASE_URL" in _fixes(obs)
    assert scripted.requests == []


def test_the_same_template_is_never_asked_about(make, scripted) -> None:
    mem = make()
    mem.resolve(mem.tool_result("psql", {}, error=DNS_WRONG), "fix the host name in DATABASE_URL")
    # another host name: the same template, so the same pattern (the repeat path), whatever the scope
    obs = mem.tool_result("psql", {}, error=DNS_WRONG.replace('"db"', '"warehouse-primary"'))
    assert "fix the host name in DATABASE_URL" in _fixes(obs)
    assert scripted.requests == []


def test_band_zero_never_asks(make, scripted) -> None:
    mem = make(band=0.0)
    assert mem.learning.adjudicator is None
    mem.resolve(mem.tool_result("psql", {}, error=DNS_WRONG), "fix the host name in DATABASE_URL")
    obs = mem.tool_result("psql", {}, error=DNS_DOWN)
    assert "fix the host name in DATABASE_URL" in _fixes(obs)  # the model alone links the look-alike
    assert scripted.requests == []


def test_the_async_client_adjudicates_too(settings: Settings, embedder, graph, scripted) -> None:
    from kgmem import AsyncKGMem

    s = settings.model_copy(
        update={
            "anthropic": settings.anthropic.model_copy(
                update={"api_key": SecretStr("sk-test-not-real"), "max_retries": 0, "timeout_s": 5.0}
            )
        }
    )
    scripted.then(("text", json.dumps({"same": [1]})))

    async def flow() -> set[str]:
        async with AsyncKGMem(s, embedder=embedder, generator=scripted.generator(s)) as mem:
            await mem.resolve(await mem.tool_result("gcloud", {}, error=ADC), "gcloud auth application-default login")
            return _fixes(await mem.tool_result("gcloud", {}, error=ADC_REWORDED))

    assert "gcloud auth application-default login" in asyncio.run(flow())
    assert len(scripted.requests) == 1  # the LLM's call ran in a worker thread, off the event loop

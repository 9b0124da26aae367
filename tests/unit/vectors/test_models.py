"""Resolving ``[embedding] model`` to files, model identities, and the model/dimension guard (pure logic)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from kgmem.config import EmbeddingSettings, load_settings
from kgmem.errors import ConfigError, EmbeddingBackendError, EmbeddingModelMismatch
from kgmem.vectors import Embedder
from kgmem.vectors.embedder import bundled_model_path
from kgmem.vectors.models import cached_model_dir, resolve_model
from kgmem.vectors.store import CUSTOM, check_model, collection_metadata, mismatch, reindex_command, same_model


def _onnx_dir(root: Path, name: str = "model", graph: str = "graph.onnx", weights: bytes = b"w1") -> Path:
    d = root / name
    d.mkdir(parents=True)
    (d / graph).write_bytes(weights)
    return d


def _tokenizer(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "tokenizer.json").write_text('{"version": "1.0"}')
    return root


def test_onnx_directory_without_tokenizer_needs_the_tokenizer_setting(tmp_path: Path) -> None:
    d = _onnx_dir(tmp_path / "pkg")
    with pytest.raises(ConfigError, match=r"ships no tokenizer.json; set \[embedding\] tokenizer"):
        resolve_model(str(d))
    spec = resolve_model(str(d), _tokenizer(tmp_path / "tok"))
    assert spec.kind == "onnx" and spec.onnx_file == d / "graph.onnx"
    assert spec.tokenizer == (tmp_path / "tok" / "tokenizer.json").resolve()
    assert spec.model_id.startswith("graph@") and len(spec.model_id.split("@")[1]) == 12
    with pytest.raises(ConfigError, match="embedding.tokenizer"):
        resolve_model(str(d), tmp_path / "missing")


def test_identity_follows_the_weights_not_the_path(tmp_path: Path) -> None:
    tok = _tokenizer(tmp_path / "tok")
    a = resolve_model(str(_onnx_dir(tmp_path / "a")), tok)
    moved = resolve_model(str(_onnx_dir(tmp_path / "b", name="elsewhere")), tok)
    retrained = resolve_model(str(_onnx_dir(tmp_path / "c", weights=b"w2")), tok)
    assert a.model_id == moved.model_id  # same graph file name and bytes
    assert same_model(a.model_id, moved.model_id)
    assert not same_model(a.model_id, retrained.model_id)
    assert resolve_model(str(tmp_path / "a" / "model" / "graph.onnx"), tok).model_id == a.model_id  # the file itself


def test_several_graphs_must_be_chosen_and_other_files_are_refused(tmp_path: Path) -> None:
    d = _onnx_dir(tmp_path, graph="one.onnx")
    (d / "two.onnx").write_bytes(b"x")
    with pytest.raises(ConfigError, match="several ONNX graphs"):
        resolve_model(str(d))
    (d / "notes.txt").write_text("x")
    with pytest.raises(ConfigError, match="not an .onnx graph"):
        resolve_model(str(d / "notes.txt"))
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ConfigError, match="neither a sentence-transformers model"):
        resolve_model(str(empty))
    with pytest.raises(ConfigError, match="does not exist"):
        resolve_model(str(tmp_path / "nope"))


def test_sentence_transformers_directory_is_identified_by_its_weights(tmp_path: Path) -> None:
    copy = tmp_path / "my-minilm"
    shutil.copytree(bundled_model_path(), copy)
    spec = resolve_model(str(copy))
    assert spec.kind == "sentence-transformers" and spec.directory == copy
    assert spec.model_id.startswith("my-minilm@")
    # The same model read from the package gets the same fingerprint under its own label.
    assert same_model(spec.model_id, resolve_model(str(bundled_model_path())).model_id)
    (copy / "1_Pooling" / "config.json").write_text('{"word_embedding_dimension": 384, "pooling_mode_cls_token": true}')
    assert not same_model(spec.model_id, resolve_model(str(copy)).model_id)  # other pooling, other vectors


def test_model_names_are_found_in_the_local_cache_only(tmp_path: Path, monkeypatch) -> None:
    hub = tmp_path / "st-home"
    snapshot = hub / "models--sentence-transformers--all-MiniLM-L6-v2" / "snapshots" / ("a" * 40)
    shutil.copytree(bundled_model_path(), snapshot)
    (hub / "models--sentence-transformers--all-MiniLM-L6-v2" / "refs").mkdir()
    (hub / "models--sentence-transformers--all-MiniLM-L6-v2" / "refs" / "main").write_text("a" * 40)
    monkeypatch.setenv("SENTENCE_TRANSFORMERS_HOME", str(hub))
    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_CACHE", str(tmp_path / "empty-hub"))
    for name in ("all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"):
        assert cached_model_dir(name) == snapshot
        assert resolve_model(name).model_id.startswith("sentence-transformers/all-MiniLM-L6-v2@")
    flat = hub / "acme_tiny-embedder"  # the layout of old sentence-transformers versions
    shutil.copytree(bundled_model_path(), flat)
    assert cached_model_dir("acme/tiny-embedder") == flat
    with pytest.raises(ConfigError, match="'acme/other' is not .* in the local cache .*never downloads"):
        resolve_model("acme/other")


def test_embedder_for_a_model_directory_resolves_when_built_and_loads_nothing(tmp_path: Path) -> None:
    tok = _tokenizer(tmp_path / "tok")
    d = _onnx_dir(tmp_path / "pkg")
    embedder = Embedder(load_settings(embedding={"model": str(d), "tokenizer": str(tok)}).embedding, tmp_path)
    assert not embedder.loaded and embedder.name.startswith("graph@")
    assert embedder.configured_by is not None and embedder.configured_by.model == str(d)
    with pytest.raises(ConfigError, match="ships no tokenizer"):
        Embedder(load_settings(embedding={"model": str(d)}).embedding, tmp_path)


def test_mismatch_names_models_dimensions_and_the_exact_command() -> None:
    meta = collection_metadata("ns", "turn", "minilm", 384)
    assert meta["kgmem_dim"] == 384 and mismatch(meta, "minilm", 384) is None
    assert mismatch(meta, "minilm", None) is None and mismatch({"kgmem_model": "minilm"}, "minilm", 768) is None
    assert "384-dimensional" in mismatch(meta, "minilm", 256)  # same name, other dimension: still refused
    l3 = EmbeddingSettings(model="/opt/models/l3", tokenizer=Path("/opt/tok dir"))
    with pytest.raises(EmbeddingModelMismatch) as err:
        check_model(meta, "paraphrase-MiniLM-L3-v2@0123456789ab", "team a", "message", 384, l3)
    text = str(err.value)
    assert "'minilm' (384 dimensions)" in text and "'paraphrase-MiniLM-L3-v2@0123456789ab' (384 dimensions)" in text
    assert "`kgmem reindex --ns 'team a' --model /opt/models/l3 --tokenizer '/opt/tok dir'`" in text
    assert reindex_command("x", None) == "kgmem reindex --ns x"
    with pytest.raises(EmbeddingModelMismatch, match=r"kgmem.maintenance.reindex\(mem.graph"):
        check_model(meta, "my-api", "ns", "message", 384, CUSTOM)


class _Backend:
    """A backend of one's own, as the docs show: any function behind name / dimension / embed."""

    def __init__(self, fn, name: str = "hash-3", dimension: int = 3) -> None:
        self.fn, self.name, self.dimension, self.calls = fn, name, dimension, []

    def embed(self, texts):
        self.calls.append(len(texts))
        return self.fn(texts)


def test_an_own_backend_is_batched_normalised_cached_and_checked() -> None:
    backend = _Backend(lambda texts: [[len(t), 1.0, 0.0] for t in texts])
    embedder = Embedder.wrap(backend, EmbeddingSettings(batch_size=2))
    assert Embedder.wrap(embedder) is embedder and embedder.name == "hash-3" and embedder.configured_by is None
    vectors = embedder.embed(["a", "bb", "ccc"])
    assert backend.calls == [2, 1] and vectors.shape == (3, 3) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    assert np.allclose(vectors[1], np.array([2, 1, 0]) / np.sqrt(5))
    embedder.embed_query("q")
    embedder.embed_query("q")
    assert backend.calls == [2, 1, 1]  # the second query came from the cache
    wrong = Embedder.wrap(_Backend(lambda texts: [[1.0, 2.0]] * len(texts)))
    with pytest.raises(EmbeddingBackendError, match=r"shape \(2, 2\) for 2 texts; expected \(2, 3\)"):
        wrong.embed(["a", "b"])
    with pytest.raises(EmbeddingBackendError, match="NaN"):
        Embedder.wrap(_Backend(lambda texts: [[float("nan"), 0, 0]] * len(texts))).embed(["a"])
    with pytest.raises(ConfigError, match="missing dimension, embed"):
        Embedder.wrap(type("NoDim", (), {"name": "x"})())
    with pytest.raises(ConfigError, match="non-empty string"):
        Embedder.wrap(_Backend(lambda t: t, name=""))


def test_fingerprints_are_remembered_until_a_file_changes(tmp_path: Path) -> None:
    tok = _tokenizer(tmp_path / "tok")
    d = _onnx_dir(tmp_path / "pkg")
    cache = tmp_path / "models"
    first = resolve_model(str(d), tok, cache).model_id
    assert first == resolve_model(str(d), tok).model_id  # same value with or without the memo
    [memo] = (cache / "fingerprints").iterdir()
    memo.write_text("remembered00")  # proves the next resolution reads the memo instead of hashing
    assert resolve_model(str(d), tok, cache).model_id == "graph@remembered00"
    (d / "graph.onnx").write_bytes(b"retrained")  # new size and mtime: a new key, hashed afresh
    assert resolve_model(str(d), tok, cache).model_id not in (first, "graph@remembered00")

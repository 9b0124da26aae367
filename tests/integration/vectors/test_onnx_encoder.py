"""The lazy embedder and the torch-free ONNX path give what sentence-transformers gives."""

from __future__ import annotations

import subprocess
import sys

import numpy as np

from kgmem.config import Settings
from kgmem.vectors import Embedder

TEXTS = ["could not connect to server: Connection refused (10.0.0.5:5432)", "hi", "word " * 400]


def test_onnx_fast_path_matches_sentence_transformers(base_settings: Settings, tmp_path) -> None:
    from sentence_transformers import SentenceTransformer

    embedder = Embedder(base_settings.embedding, base_settings.models_dir)
    assert not embedder.loaded and embedder.backend == "not loaded" and embedder.dim == 384
    ours = embedder.embed(TEXTS)
    assert embedder.loaded and embedder.backend == "onnx" and ours.shape == (3, 384)
    reference = SentenceTransformer(str(embedder.source._onnx_dir()), device="cpu", backend="onnx").encode(
        TEXTS, normalize_embeddings=True
    )
    assert np.allclose(ours, reference, atol=1e-5)  # incl. the 256-token truncation of the long text
    torch_ref = SentenceTransformer(str(embedder.source.model_path), device="cpu").encode(
        TEXTS, normalize_embeddings=True
    )
    assert (ours * torch_ref).sum(axis=1).min() > 0.999


def test_building_a_client_and_embedding_imports_no_torch(base_settings: Settings) -> None:
    code = (
        "import sys\nfrom kgmem.config import load_settings\nfrom kgmem.vectors import Embedder\n"
        "s = load_settings()\ne = Embedder(s.embedding, s.models_dir)\n"
        "assert 'sentence_transformers' not in sys.modules\ne.embed(['x'])\n"
        "print(e.backend, 'torch' in sys.modules, 'sentence_transformers' in sys.modules, "
        "'huggingface_hub' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    # huggingface_hub too: only a model *name* is looked up in its cache (kgmem/vectors/models.py).
    assert out.stdout.split() == ["onnx", "False", "False", "False"]


def test_idle_onnx_workers_block_instead_of_spinning(base_settings: Settings) -> None:
    from kgmem.vectors.onnx_encoder import SPIN_KEY

    embedder = Embedder(base_settings.embedding, base_settings.models_dir)
    embedder.embed(["load the model"])
    options = embedder.source._loaded().session.get_session_options()
    assert options.get_session_config_entry(SPIN_KEY) == "0"

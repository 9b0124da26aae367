"""`kgmem demo`'s silencer: library warnings and sub-ERROR records go, kgmem's own output stays."""

from __future__ import annotations

import io
import logging
import warnings

from kgmem.cli.quiet import library_noise_silenced


def _emit() -> None:
    logging.getLogger("sentence_transformers.backend.utils").warning("library warning record")
    logging.getLogger("sentence_transformers.backend.utils").error("library error record")
    logging.getLogger("kgmem.vectors.embedder").warning("kgmem warning record")
    logging.getLogger("kgmem.demo").info("kgmem info record")
    warnings.warn_explicit("library python warning", UserWarning, "torch/onnx/utils.py", 1, module="torch.onnx.utils")
    warnings.warn_explicit("kgmem python warning", UserWarning, "kgmem/demo.py", 1, module="kgmem.demo")


def test_library_noise_is_hidden_and_kgmem_output_is_not() -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with library_noise_silenced():
                _emit()
        with warnings.catch_warnings(record=True) as after:
            warnings.simplefilter("always")
            _emit()  # outside the block everything passes again
    finally:
        root.removeHandler(handler)
        root.setLevel(old_level)
    lines = stream.getvalue().splitlines()
    inside, outside = lines[:3], lines[3:]
    assert inside == ["library error record", "kgmem warning record", "kgmem info record"]
    assert outside == ["library warning record", "library error record", "kgmem warning record", "kgmem info record"]
    assert [str(w.message) for w in caught] == ["kgmem python warning"]
    assert len(after) == 2

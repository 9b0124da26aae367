"""Keep third-party noise off a first-time user's terminal (``kgmem demo``).

The first model load exports MiniLM to ONNX through torch and optimum, which print tracer and
deprecation warnings, Hugging Face notices and progress bars that mean nothing to someone
trying kgmem. :func:`library_noise_silenced` hides exactly that for the duration of a command:
Python warnings raised outside kgmem, log records below ERROR from loggers outside kgmem,
progress bars (tqdm, Hugging Face) and onnxruntime's own C++ log. kgmem's warnings and log
records, and every error, still reach the terminal.
"""

from __future__ import annotations

import logging
import os
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

#: Environment switches the libraries read when they are first imported (set only if unset).
QUIET_ENV = {
    "TQDM_DISABLE": "1",  # tqdm >= 4.66: every bar off unless a caller forces it
    "HF_HUB_DISABLE_PROGRESS_BARS": "1",
    "TRANSFORMERS_VERBOSITY": "error",
    "TRANSFORMERS_NO_ADVISORY_WARNINGS": "1",
    "TOKENIZERS_PARALLELISM": "false",  # its fork warning
    "ORT_LOGGING_LEVEL": "3",
}


class _OwnOrSevere(logging.Filter):
    """Passes kgmem's records at any level and everyone else's from ERROR up."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.name == "kgmem" or record.name.startswith("kgmem.") or record.levelno >= logging.ERROR


@contextmanager
def library_noise_silenced() -> Iterator[None]:
    """Silence third-party warnings, sub-ERROR log records and progress bars inside the block."""
    for key, value in QUIET_ENV.items():
        os.environ.setdefault(key, value)
    _onnxruntime_errors_only()
    flt = _OwnOrSevere()
    handlers = list(logging.getLogger().handlers)
    for handler in handlers:
        handler.addFilter(flt)
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore")
            warnings.filterwarnings("default", module=r"kgmem(\.|$)")  # later filters take precedence
            yield
    finally:
        for handler in handlers:
            handler.removeFilter(flt)


def _onnxruntime_errors_only() -> None:
    try:
        import onnxruntime
    except ImportError:  # pragma: no cover - a dependency of sentence-transformers[onnx]
        return
    onnxruntime.set_default_logger_severity(3)

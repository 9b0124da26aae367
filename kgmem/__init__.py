"""kgmem — a knowledge service that makes AI agents learn from experience."""

from typing import TYPE_CHECKING, Any

from kgmem.config import Settings, load_settings

if TYPE_CHECKING:
    from kgmem.aio import AsyncKGMem
    from kgmem.client import KGMem

__all__ = ["AsyncKGMem", "KGMem", "Settings", "load_settings"]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    # Lazy: `kgmem status` and friends must not pay for importing torch and chromadb.
    if name == "KGMem":
        from kgmem.client import KGMem

        return KGMem
    if name == "AsyncKGMem":
        from kgmem.aio import AsyncKGMem

        return AsyncKGMem
    raise AttributeError(name)

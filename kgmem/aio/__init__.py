"""The asyncio client (:class:`AsyncKGMem`) and its async store adapters."""

from kgmem.aio.client import AsyncKGMem

__all__ = ["AsyncKGMem"]

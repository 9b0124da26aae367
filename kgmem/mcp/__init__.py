"""kgmem as a Model Context Protocol server (``kgmem mcp``), on the official ``mcp`` SDK."""

from kgmem.mcp.server import build_server

__all__ = ["build_server"]

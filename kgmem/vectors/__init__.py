"""Vectors: the embedding model and the Chroma store (a derived index of the graph)."""

from kgmem.vectors.embedder import Embedder, EmbeddingBackend
from kgmem.vectors.store import VectorHit, VectorStore, open_chroma

__all__ = ["Embedder", "EmbeddingBackend", "VectorHit", "VectorStore", "open_chroma"]

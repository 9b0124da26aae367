"""Call-graph self-healing (seed 003 §2.6): Function nodes, CALLS edges confirmed by observations."""

from kgmem.callgraph.healer import CallGraph, CallGraphSettings, HealResult, confirm, decayed, pairs

__all__ = ["CallGraph", "CallGraphSettings", "HealResult", "confirm", "decayed", "pairs"]

"""Batch maintenance: rebuild Chroma from the graph, export/import a namespace, decay."""

from kgmem.maintenance.decay import DecayResult, DecaySettings, run_decay
from kgmem.maintenance.export import ExportSummary, export_namespace
from kgmem.maintenance.importer import ImportSummary, import_namespace
from kgmem.maintenance.reindex import ReindexSummary, reindex

__all__ = [
    "DecayResult",
    "DecaySettings",
    "ExportSummary",
    "ImportSummary",
    "ReindexSummary",
    "export_namespace",
    "import_namespace",
    "reindex",
    "run_decay",
]

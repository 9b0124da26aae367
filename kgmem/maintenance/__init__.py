"""Batch maintenance: rebuild Chroma from the graph, export/import or delete a namespace, decay."""

from kgmem.maintenance.decay import DecayResult, DecaySettings, run_decay
from kgmem.maintenance.export import ExportSummary, export_namespace
from kgmem.maintenance.importer import ImportSummary, import_namespace
from kgmem.maintenance.namespace import DeletedNamespace, delete_namespace
from kgmem.maintenance.reindex import ReindexSummary, reindex

__all__ = [
    "DecayResult",
    "DecaySettings",
    "DeletedNamespace",
    "ExportSummary",
    "ImportSummary",
    "ReindexSummary",
    "delete_namespace",
    "export_namespace",
    "import_namespace",
    "reindex",
    "run_decay",
]

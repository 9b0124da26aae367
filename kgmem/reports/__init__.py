"""Analyst surfaces: the Cypher report library, its renderers and the Neo4j Browser assets."""

from kgmem.reports.library import ReportResult, list_reports, load_report, report_op, run_report
from kgmem.reports.render import FORMATS, render
from kgmem.reports.spec import ReportSpec

__all__ = ["FORMATS", "ReportResult", "ReportSpec", "list_reports", "load_report", "render", "report_op", "run_report"]

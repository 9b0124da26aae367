"""Bulk ingest of JSONL event files (``kgmem ingest``)."""

from kgmem.ingest.events import EVENT_TYPES, parse_event, parse_line
from kgmem.ingest.ingester import Ingester, IngestReport, LineError, ingest, ingest_op

__all__ = ["EVENT_TYPES", "IngestReport", "Ingester", "LineError", "ingest", "ingest_op", "parse_event", "parse_line"]

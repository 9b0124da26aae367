"""Conversation turns as ``Message`` nodes (``PART_OF`` a ``Session``, chained by ``NEXT``).

``store`` writes and reads them; ``recorder`` is the client's turn path (store now or write-behind,
spool while Neo4j is unreachable, listeners such as analysis); ``writer`` is the write-behind thread.
"""

from kgmem.conversation.store import MESSAGE_KIND, Turn, TurnStore, message_id

__all__ = ["MESSAGE_KIND", "Turn", "TurnStore", "message_id"]

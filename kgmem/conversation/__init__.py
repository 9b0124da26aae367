"""Conversation turns as ``Message`` nodes (``PART_OF`` a ``Session``, chained by ``NEXT``)."""

from kgmem.conversation.store import MESSAGE_KIND, Turn, TurnStore, message_id

__all__ = ["MESSAGE_KIND", "Turn", "TurnStore", "message_id"]

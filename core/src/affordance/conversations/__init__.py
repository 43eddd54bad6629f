"""Conversations that outlive a process: a store of transcripts and the handle a run takes.

- ``store``: :class:`ConversationStore`, what a store does (load, append, list, delete), and
  :class:`Conversation`, one conversation of a store — the ``conversation=`` argument of the
  four evaluate entry points, which loads the history before a run and appends the run's new
  messages after it, exactly once;
- ``sqlite``: :class:`SQLiteConversationStore`, a store in one SQLite file (standard library,
  WAL), safe for writers in threads and in other processes.

``import affordance`` does not import this package.
"""

from affordance.conversations.sqlite import SQLiteConversationStore
from affordance.conversations.store import (
    Conversation,
    ConversationConflictError,
    ConversationStore,
)

__all__ = [
    "Conversation",
    "ConversationConflictError",
    "ConversationStore",
    "SQLiteConversationStore",
]

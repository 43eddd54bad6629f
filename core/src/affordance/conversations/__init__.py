"""Conversations that outlive a process: a store of transcripts and the handle a run takes.

- ``store``: :class:`ConversationStore`, what a store does (load, append, list, delete), and
  :class:`Conversation`, one conversation of a store — the ``conversation=`` argument of the
  four evaluate entry points, which loads the history before a run and appends the run's new
  messages after it, exactly once (``append(..., expected=length)``; a writer that appended in
  between makes it :class:`ConversationConflictError`);
- ``sqlite``: :class:`SQLiteConversationStore`, a store in one SQLite file (standard library,
  WAL), safe for writers in threads and in other processes.

The format of a stored message is ``affordance.transcript``'s; the design, the schema and the
tests that hold them: ``specs/CONVERSATIONS.md``. ``import affordance`` does not import this
package, and this package imports no more than the standard library's ``sqlite3`` until a
conversation is read or written.
"""

from affordance.conversations.sqlite import SQLiteConversationStore
from affordance.conversations.store import (
    Conversation,
    ConversationConflictError,
    ConversationStore,
    ConversationStoreError,
)

__all__ = [
    "Conversation",
    "ConversationConflictError",
    "ConversationStore",
    "ConversationStoreError",
    "SQLiteConversationStore",
]

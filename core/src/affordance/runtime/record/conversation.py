"""What a run needs of the ``conversation=`` it is given: to load its history, and to append.

``affordance.conversations.Conversation`` (one conversation of a store) is one; any object with
these two methods is another. A run loads the history once, before its first request, and
appends what it added after the history — the caller's ``messages=`` and its own transcript —
whenever it returns, waits or stops, each message once (see ``Evaluation.save_conversation``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from affordance.runtime.model.messages import AssistantMessage, Message, ToolResultMessage

__all__ = ["ConversationHandle", "whole_until"]


class ConversationHandle(Protocol):
    def load(self) -> tuple[Message, ...]:
        """The conversation's messages so far."""
        ...

    def append(self, messages: Sequence[Message], *, expected: int | None = None) -> int:
        """Add ``messages`` if the conversation still has ``expected`` messages (else raise,
        appending nothing); the conversation's new length."""
        ...


def whole_until(transcript: Sequence[Message], start: int) -> int:
    """Where the longest whole stretch of ``transcript`` from ``start`` ends: past its last
    message after which every call made since ``start`` has its result (``start`` itself when
    there is none)."""
    whole, open_calls = start, set[str]()
    for index in range(start, len(transcript)):
        message = transcript[index]
        if isinstance(message, AssistantMessage):
            open_calls = {call.id for call in message.tool_calls}
        elif isinstance(message, ToolResultMessage):
            open_calls.discard(message.call_id)
        if not open_calls:
            whole = index + 1
    return whole

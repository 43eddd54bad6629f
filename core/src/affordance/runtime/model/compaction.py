"""The ``history=`` hook: what a request carries of a long conversation.

Before each request the loop hands the hook every message the request would carry — the
caller's messages (or the rendered prompt's opening message) and the run's transcript — and
sends what it returns instead. The run's own transcript (``response.messages``) is never
changed: the hook only shapes what the model sees. What comes back is checked before anything
is sent, since a provider refuses a tool result without its call (or a call without its
result) with a 400 that names neither: it must be a non-empty sequence of messages in which
every tool call and every tool result keep each other.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from affordance.errors import PromptEvaluationError
from affordance.runtime.model.messages import (
    AssistantMessage,
    Message,
    ToolResultMessage,
    UserMessage,
)

__all__ = ["HistoryHook", "compacted"]

HistoryHook = Callable[[tuple[Message, ...]], Sequence[Message]]
"""Takes the messages a request would carry; returns the ones to send."""

_MESSAGES = (UserMessage, AssistantMessage, ToolResultMessage)


def compacted(
    hook: HistoryHook, messages: tuple[Message, ...], *, prompt_name: str
) -> tuple[Message, ...]:
    """What ``hook`` makes of ``messages``, checked (see the module)."""

    def refuse(problem: str) -> PromptEvaluationError:
        return PromptEvaluationError(
            f"the history hook {_name(hook)} {problem}", prompt_name=prompt_name, phase="history"
        )

    try:
        returned: object = hook(messages)
    except Exception as error:
        raise refuse(f"raised {type(error).__name__}: {error}") from error
    if returned is messages:
        return messages
    if isinstance(returned, (str, bytes)) or not isinstance(returned, Sequence):
        raise refuse(f"returned {type(returned).__name__}, not a sequence of messages")
    kept = tuple(returned)
    if not kept:
        raise refuse("returned no messages; a request needs at least one")
    calls: set[str] = set()
    answered: set[str] = set()
    for index, message in enumerate(kept):
        if not isinstance(message, _MESSAGES):
            raise refuse(f"returned a {type(message).__name__} at {index}, not a message")
        if isinstance(message, AssistantMessage):
            calls.update(call.id for call in message.tool_calls)
        elif isinstance(message, ToolResultMessage):
            if message.call_id not in calls:
                raise refuse(
                    f"kept the result of call {message.call_id!r} without the call before it"
                )
            answered.add(message.call_id)
    unanswered = sorted(calls - answered)
    if unanswered:
        raise refuse(f"kept call(s) {', '.join(map(repr, unanswered))} without their results")
    return kept


def _name(hook: object) -> str:
    return getattr(hook, "__qualname__", None) or type(hook).__qualname__

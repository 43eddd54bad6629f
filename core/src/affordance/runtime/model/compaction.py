"""The ``history=`` hook: what a request carries of a long conversation.

Before each request the loop hands the hook every message the request would carry — the
caller's messages (or the rendered prompt's opening message) and the run's transcript — and
sends what it returns instead. The run's own transcript (``response.messages``) is never
changed: the hook only shapes what the model sees. What comes back is checked before anything
is sent, since a provider refuses a tool result without its call (or a call without its
result) with a 400 that names neither: it must be a non-empty sequence of messages in which
every tool call and every tool result keep each other.

Two hooks are built in: :func:`keep_last_turns` (the last ``n`` user turns) and
:func:`drop_tool_results_older_than` (every message kept, old results' content dropped).
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

__all__ = [
    "DROPPED_RESULT",
    "HistoryHook",
    "compacted",
    "drop_tool_results_older_than",
    "keep_last_turns",
]

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


# -- built-in hooks ----------------------------------------------------------------------------

DROPPED_RESULT = "[this tool result was dropped from the conversation to save space]"
"""What :func:`drop_tool_results_older_than` leaves of an old result, for the model to read."""


def keep_last_turns(n: int) -> HistoryHook:
    """A hook sending the first message and the last ``n`` user turns: a turn is a user
    message and everything after it up to the next one (the model's answers, its calls and
    their results), so what is sent never parts a call from its result. The first message is
    kept when it is a user message — the task itself in a run without caller messages (the
    rendered prompt), the conversation's opening otherwise — so a cut never loses what the run
    is about, even when the last turn is the loop's own request for another answer. Messages
    before the first user message go with the oldest turn. Fewer than ``n`` turns after the
    first message: sent whole."""
    given: object = n  # callers are not always type-checked
    if isinstance(given, bool) or not isinstance(given, int) or given < 1:
        raise ValueError(f"keep_last_turns needs a positive number of turns, got {n!r}")

    def keep(messages: tuple[Message, ...]) -> tuple[Message, ...]:
        starts = [i for i, message in enumerate(messages) if isinstance(message, UserMessage)]
        if starts and starts[0] == 0:  # the first message is kept anyway: count after it
            starts = starts[1:]
            if len(starts) <= n:
                return messages
            return (messages[0], *messages[starts[-n] :])
        if len(starts) <= n:
            return messages
        return messages[starts[-n] :]

    keep.__qualname__ = f"keep_last_turns({n})"
    return keep


def drop_tool_results_older_than(n: int) -> HistoryHook:
    """A hook that keeps every message but empties the tool results answering calls made
    before the model's last ``n`` answers (:data:`DROPPED_RESULT` stands in their content):
    each call keeps its result, so the pairing providers check holds; only its bulk goes."""
    given: object = n  # callers are not always type-checked
    if isinstance(given, bool) or not isinstance(given, int) or given < 0:
        raise ValueError(f"drop_tool_results_older_than needs 0 or more answers, got {n!r}")

    def drop(messages: tuple[Message, ...]) -> tuple[Message, ...]:
        answers = [i for i, message in enumerate(messages) if isinstance(message, AssistantMessage)]
        if len(answers) <= n:
            return messages
        recent = answers[-n] if n else len(messages)  # results after this index are kept
        if not any(
            isinstance(message, ToolResultMessage) and message.content != DROPPED_RESULT
            for message in messages[:recent]
        ):
            return messages
        return tuple(
            _dropped(message)
            if index < recent and isinstance(message, ToolResultMessage)
            else message
            for index, message in enumerate(messages)
        )

    drop.__qualname__ = f"drop_tool_results_older_than({n})"
    return drop


def _dropped(message: ToolResultMessage) -> ToolResultMessage:
    return ToolResultMessage(message.call_id, message.name, DROPPED_RESULT, message.is_error)

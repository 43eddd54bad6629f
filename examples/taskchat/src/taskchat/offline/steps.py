"""What happened since the user spoke: the run's tool calls, each with its result, read back
from the request's messages (the model keeps no state of its own)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from affordance.adapters import (
    AssistantMessage,
    Message,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

__all__ = ["Step", "Steps", "since_last_user_message"]


@dataclass(frozen=True, slots=True)
class Step:
    """One tool call of this run and its result: the message line and the JSON payload."""

    name: str
    arguments: dict[str, Any]
    ok: bool
    message: str
    data: Any = None

    def error_code(self) -> str | None:
        code = self.data.get("code") if isinstance(self.data, dict) else None
        return code if isinstance(code, str) else None

    def declined(self) -> bool:
        return not self.ok and "declined" in self.message


@dataclass(frozen=True, slots=True)
class Steps:
    items: tuple[Step, ...] = ()

    def last(self, name: str) -> Step | None:
        for step in reversed(self.items):
            if step.name == name:
                return step
        return None

    def all(self, name: str) -> list[Step]:
        return [step for step in self.items if step.name == name]


def since_last_user_message(messages: Sequence[Message]) -> tuple[str, Steps]:
    """The last user message's text and the steps taken since (``""`` when there is none)."""
    start = max((i for i, m in enumerate(messages) if isinstance(m, UserMessage)), default=-1)
    if start < 0:
        return "", Steps()
    user = messages[start]
    assert isinstance(user, UserMessage)
    calls: dict[str, ToolCall] = {}
    steps: list[Step] = []
    for message in messages[start + 1 :]:
        if isinstance(message, AssistantMessage):
            calls.update((call.id, call) for call in message.tool_calls)
        elif isinstance(message, ToolResultMessage) and message.call_id in calls:
            call = calls[message.call_id]
            steps.append(_step(call, message))
    return user.text, Steps(tuple(steps))


def _step(call: ToolCall, result: ToolResultMessage) -> Step:
    arguments: Any = call.arguments
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except ValueError:
            arguments = {}
    first, _, rest = result.content.partition("\n")
    data: Any = None
    message = result.content
    if rest:
        try:
            data = json.loads(rest)
            message = first
        except ValueError:
            data = None
    return Step(
        call.name,
        dict(arguments) if isinstance(arguments, dict) else {},
        not result.is_error,
        message,
        data,
    )

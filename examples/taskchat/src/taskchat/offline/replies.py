"""The turns the offline model answers with: tool calls, or a reply — and the sentence a reply
gives for a failed step (what failed, why, and what to do about it)."""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

from affordance.adapters import ProviderTurn, ToolCall
from affordance.testing import text, tool_calls
from taskchat.offline.steps import Step

__all__ = ["call", "calls", "failure", "quoted", "say"]


def call(name: str, arguments: dict[str, Any], say: str | None = None) -> ProviderTurn:
    """A turn calling one tool, with ``say`` as its text."""
    return tool_calls(
        ToolCall(f"call_{uuid.uuid4().hex[:16]}", name, json.dumps(arguments)), text=say
    )


def calls(*pairs: tuple[str, dict[str, Any]]) -> ProviderTurn:
    """A turn calling several tools at once: ``(name, arguments)`` pairs."""
    return tool_calls(
        *(ToolCall(f"call_{uuid.uuid4().hex[:16]}", n, json.dumps(a)) for n, a in pairs)
    )


def say(reply: str) -> ProviderTurn:
    """The final turn: the reply."""
    return text(reply)


_INVALID = re.compile(r"^Invalid arguments for '\w+': (?:\d+ validation errors? for \w+:)?\s*")
_RECOVERY_FOR_PEOPLE = {
    "TASK_NOT_FOUND": "Say “list my tasks” to see the ids.",
    "ATTACHMENT_NOT_FOUND": "Say “refresh” with the task to see its attachments.",
}


def failure(doing: str, step: Step) -> str:
    """A readable sentence for a failed call: what failed, why, and what to do about it."""
    detail = " ".join(line.strip() for line in step.message.splitlines() if line.strip())
    detail = _INVALID.sub("", detail)
    sentence = f"I couldn't {doing}: {detail.rstrip('.')}."
    code = step.error_code()
    advice = _RECOVERY_FOR_PEOPLE.get(code or "")
    if advice is None and isinstance(step.data, dict):
        advice = step.data.get("recover_action")
    return f"{sentence} {advice.rstrip('.')}." if advice else sentence


def quoted(title: Any) -> str:
    return f"“{title}”" if title else ""

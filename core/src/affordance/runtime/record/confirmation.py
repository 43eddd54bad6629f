"""Confirming destructive tool calls: the caller's approve/deny answers and what waits for them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from affordance._frozen import frozen
from affordance.tools.result import ToolResult

__all__ = [
    "Confirmation",
    "PendingConfirmation",
    "answer_problems",
    "approve",
    "arguments_of",
    "declined_result",
    "deny",
    "is_declined",
]

_DECLINED = "The user declined to run "


@frozen
class Confirmation:
    """The caller's answer for one pending call; build it with :func:`approve` or :func:`deny`."""

    approved: bool
    message: str = ""


def approve() -> Confirmation:
    return Confirmation(True)


def deny(message: str = "") -> Confirmation:
    """Refuse the call; ``message`` is passed to the model as the reason."""
    return Confirmation(False, message)


def declined_result(name: str, reason: str = "") -> ToolResult[None]:
    """The result a call gets when the user denies it: a failure that says it was not run,
    with the user's ``reason`` (``deny``'s message) for the model to read."""
    why = f" Reason: {reason.strip()}" if reason.strip() else ""
    return ToolResult.error(f"{_DECLINED}{name!r}; it was not run.{why}")


def is_declined(result: ToolResult[Any] | str) -> bool:
    """Whether a call's result was the user declining it, not a failure: from the result, or
    from a tool message's text in a stored transcript (which keeps nothing else of it)."""
    if isinstance(result, str):
        return result.startswith(_DECLINED)
    return not result.success and result.message.startswith(_DECLINED)


@frozen
class PendingConfirmation:
    """A destructive call whose arguments were validated and which waits for approval.

    ``arguments`` is the validated params as JSON-like data, for showing to a person.
    ``hosted_tool`` names the hosted tool whose provider holds the call until it is approved
    (an MCP server's tool; ``params`` is then its arguments too); None for a local tool.
    ``via`` is the id of this run's call whose nested run holds the call (a ``PromptTool``'s):
    answering the nested call by its own id resumes both runs; None for a call of this run.
    """

    call_id: str
    name: str
    params: Any
    arguments: Mapping[str, Any]
    hosted_tool: str | None = None
    via: str | None = None


def arguments_of(params: Any) -> Mapping[str, Any]:
    """Validated params as JSON-like data, for showing a pending call to a person."""
    from affordance.serde import dump

    data = dump(params) if params is not None else {}
    return data if isinstance(data, Mapping) else {"value": data}


def answer_problems(pending: Iterable[str], confirmations: Mapping[str, Confirmation]) -> str:
    """What is wrong with ``confirmations`` as the answers to the ``pending`` call ids ("" when
    nothing): every pending call answered, each with an approve()/deny() answer, and nothing
    else answered."""
    waiting = set(pending)
    problems = []
    unknown = sorted(set(confirmations) - waiting)
    if unknown:
        problems.append(f"calls that are not pending: {', '.join(unknown)}")
    missing = sorted(waiting - set(confirmations))
    if missing:
        problems.append(f"no answer for pending calls: {', '.join(missing)}")
    answers: Mapping[str, object] = confirmations  # callers are not always type-checked
    wrong = sorted(c for c, a in answers.items() if not isinstance(a, Confirmation))
    if wrong:
        problems.append(f"not an approve()/deny() answer: {', '.join(wrong)}")
    return "; ".join(problems)

"""What the loop asks a provider for (:class:`ModelRequest`) and what comes back
(:class:`ProviderTurn`). Provider plugins translate between these and their wire format."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeAlias

from affordance._frozen import frozen
from affordance.clock import Deadline
from affordance.prompt.rendered import RenderedPrompt
from affordance.runtime.model.messages import Message, ToolCall
from affordance.tools.hosted import HostedTool
from affordance.tools.tool import Tool

__all__ = [
    "PAUSED",
    "TOOL_CHOICE_KEYWORDS",
    "ModelRequest",
    "ModelSwitch",
    "ProviderTurn",
    "ToolChoice",
    "Usage",
    "tool_choice_for_turn",
]

ToolChoice: TypeAlias = str | Mapping[str, Any]
"""``"auto"``, ``"none"``, ``"required"``, a tool's name, or a provider's wire value (a mapping
sent as is). Provider plugins translate the first four into their wire format."""

TOOL_CHOICE_KEYWORDS = frozenset({"auto", "none", "required"})


def tool_choice_for_turn(choice: ToolChoice | None, turn: int) -> ToolChoice | None:
    """The choice to send on ``turn`` (1-based): ``"required"`` and a tool name force a call,
    so they hold for the first turn only and later turns are ``"auto"``, or the model could
    never give its final answer. ``"auto"``, ``"none"`` and wire mappings hold for every turn.
    """
    if choice is None or not isinstance(choice, str) or choice in ("auto", "none"):
        return choice
    return choice if turn <= 1 else "auto"


@frozen
class Usage:
    """Token counts, summed over the turns of an evaluation.

    ``input_tokens`` counts every input token, cached ones included; ``cached_input_tokens`` is
    the part served from the provider's cache. ``output_tokens`` includes reasoning tokens.
    ``cost`` is the price in US dollars when the run prices its turns (a runner's ``prices``,
    or a cost limit) and every turn's price was known; ``None`` otherwise.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0
    reasoning_tokens: int = 0
    cost: float | None = None

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def __add__(self, other: Usage) -> Usage:
        if other is NO_USAGE:  # offline adapters and turns that report none
            return self
        if self is NO_USAGE:  # the first turn of a run
            return other
        cost, more = self.cost, other.cost
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cached_input_tokens + other.cached_input_tokens,
            self.reasoning_tokens + other.reasoning_tokens,
            None if cost is None or more is None else cost + more,  # one unknown: unknown
        )


NO_USAGE = Usage()

PAUSED = "paused"
"""The finish reason of a turn the provider paused itself; the loop continues it."""


@frozen
class ModelRequest:
    """One request to the model.

    ``instructions`` is the system text (``None`` when the rendered prompt is itself the first
    user message); ``messages`` is the transcript so far. ``output_schema`` asks for structured
    output through the provider's native JSON-schema mode. ``deadline`` is the evaluation's:
    adapters bound their HTTP timeout by :meth:`timeout`. ``tool_choice`` is this turn's (see
    :func:`tool_choice_for_turn`; only set when there are tools); ``parallel_tool_calls`` is the
    caller's setting, ``None`` leaving the provider's default. ``retries=False`` asks the adapter
    to send the request once: neither its SDK nor its own retry policy retries a transient
    failure, which reaches the caller at once (a durable engine retrying with its own policy).
    """

    prompt_name: str
    run_id: str
    turn: int
    rendered: RenderedPrompt[Any]
    instructions: str | None
    messages: tuple[Message, ...]
    tools: tuple[Tool[Any, Any], ...]
    hosted_tools: tuple[HostedTool[Any], ...]
    output_schema: Mapping[str, Any] | None = None
    output_name: str = "output"
    deadline: Deadline | None = None
    tool_choice: ToolChoice | None = None
    parallel_tool_calls: bool | None = None
    retries: bool = True

    def timeout(self) -> float | None:
        """Seconds left before the evaluation's deadline (for the HTTP timeout), or None."""
        return None if self.deadline is None else self.deadline.remaining()


@frozen
class ModelSwitch:
    """A model that failed a request another model then answered (a fallback): ``provider``
    and ``model`` name the one that failed, ``status`` its HTTP status (``None``: no answer —
    a connection error or a timeout) and ``message`` the error's text, which holds metadata
    only (a ``PromptEvaluationError``'s message)."""

    provider: str
    model: str | None
    status: int | None
    message: str


@frozen
class ProviderTurn:
    """A provider's answer, normalized.

    ``finish_reason`` is one of ``"stop"``, ``"tool_calls"``, ``"length"``, ``"refusal"``,
    ``"content_filter"``, ``"paused"`` (:data:`PAUSED`: the provider paused its own turn, e.g.
    a long server-side tool loop; the loop sends the transcript back so it continues) or a
    provider-specific string. ``hosted_items`` are the response items hosted-tool codecs
    parse; ``provider_items`` are echoed back on the next request.

    ``provider`` and ``model`` name who answered when that is not simply the runner's
    connection (a fallback sets them; ``None``: the connection's name and model).
    ``switches`` are the models that failed this request before one answered, in order.
    ``response_model`` is the model the response itself names (a dated snapshot of the one
    asked for, typically); ``None`` when it names none.
    """

    text: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    hosted_items: tuple[Mapping[str, Any], ...] = ()
    provider_items: tuple[Mapping[str, Any], ...] = ()
    usage: Usage = NO_USAGE
    finish_reason: str = "stop"
    refusal: str | None = None
    response_id: str | None = None
    provider: str | None = None
    model: str | None = None
    switches: tuple[ModelSwitch, ...] = ()
    response_model: str | None = None

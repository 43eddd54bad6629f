"""In-process events: what happened during an evaluation, published on an
:class:`~affordance.runtime.record.bus.EventBus` (``bus``).

Each event is a frozen dataclass naming the prompt and the run it belongs to. Every session
keeps the ``ToolInvoked``, ``OverrideSkipped`` and ``PromptExecuted`` events of its runs
(:func:`~affordance.runtime.record.session.kept_by_default`); the events of a run's requests to
its model (``REQUEST_EVENTS``) are built only when someone watches one of them.
"""

from __future__ import annotations

from dataclasses import field
from typing import TYPE_CHECKING, Any

from affordance._frozen import frozen
from affordance.prompt.disclosure import DisclosureRequest
from affordance.runtime.record.session import handler_event, kept_by_default, watched_event
from affordance.tools.result import ToolResult

if TYPE_CHECKING:
    from affordance.prompt.overrides.applied import SkippedOverride
    from affordance.prompt.paths import SectionPath
    from affordance.prompt.rendered import RenderedPrompt
    from affordance.runtime.model.turn import Usage
    from affordance.runtime.record.response import PromptResponse
    from affordance.tools.tool import Tool

__all__ = [
    "ConfirmationRequested",
    "ConfirmationResolved",
    "DisclosureRequest",
    "EvaluationFailed",
    "EvaluationStarted",
    "ModelAnswered",
    "ModelRequestFailed",
    "ModelRequestSent",
    "ModelSwitched",
    "OutputRetried",
    "OverrideSkipped",
    "PromptExecuted",
    "PromptRendered",
    "ToolAttemptFailed",
    "ToolCallDenied",
    "ToolHandlerStarted",
    "ToolInvoked",
]


@frozen
class PromptRendered:
    """A prompt was rendered for an evaluation (again after sections were opened)."""

    prompt_name: str
    run_id: str
    rendered: RenderedPrompt[Any]


@kept_by_default
@frozen
class OverrideSkipped:
    """A prompt override the evaluation was given but did not apply: stale (its original
    changed since it was written), unknown, refused or invalid (``skipped`` says which and
    why). One event per override, when the evaluation starts."""

    prompt_name: str
    run_id: str
    skipped: SkippedOverride


@kept_by_default
@frozen
class ToolInvoked:
    """A tool call finished — successfully or not, from the cache or not.

    ``rendered_output`` is exactly ``result.render()`` (``""`` when the value is None), so
    observers see what the provider saw.
    """

    prompt_name: str
    run_id: str
    turn: int
    call_id: str
    name: str
    params: Any
    result: ToolResult[Any]
    rendered_output: str
    duration: float
    attempts: int = 1
    cached: bool = False
    disclosure: DisclosureRequest | None = None

    @property
    def success(self) -> bool:
        return self.result.success


@handler_event
@frozen
class ToolHandlerStarted:
    """A call's handler is about to run (before its first attempt); ``ToolInvoked`` ends it.

    The executor builds it only when someone would see it, and publishes it in the context the
    handler runs in: a copy of the run's context private to this call, which the handler's
    attempts and threads inherit and which is dropped when the call ends. So a subscriber may
    set context variables for the handler (a tracer: make the call's span current) and need
    not reset them. Calls answered without a handler (cached, refused, invalid) have none.
    """

    prompt_name: str
    run_id: str
    turn: int
    call_id: str
    name: str
    params: Any
    tool: Tool[Any, Any]


@handler_event
@frozen
class ToolAttemptFailed:
    """An attempt of a call's handler failed: ``error_code`` says how (``timeout``, a
    ``ToolError``'s code, the class name of what the handler raised); ``retrying``: another
    attempt follows. Built, like ``ToolHandlerStarted``, only when someone would see it."""

    prompt_name: str
    run_id: str
    turn: int
    call_id: str
    name: str
    attempt: int
    error_code: str
    retrying: bool


@frozen
class ToolCallDenied:
    """The tool policy refused a call (or kept a hosted tool out of a request)."""

    prompt_name: str
    run_id: str
    call_id: str
    name: str
    reason: str


@frozen
class ConfirmationRequested:
    """A destructive call waits for the caller's approval."""

    prompt_name: str
    run_id: str
    call_id: str
    name: str
    params: Any


@frozen
class ConfirmationResolved:
    """The caller approved or denied a pending destructive call."""

    prompt_name: str
    run_id: str
    call_id: str
    name: str
    approved: bool
    message: str = ""


@kept_by_default
@frozen
class PromptExecuted:
    """An evaluation returned (finished, or suspended awaiting confirmation)."""

    prompt_name: str
    run_id: str
    response: PromptResponse[Any]
    section_paths_opened: tuple[SectionPath, ...] = field(default=())


@frozen
class ModelSwitched:
    """A request failed on one model and went to the next (a fallback's switch).

    ``failed_provider``/``failed_model`` name the model that failed, ``status`` its HTTP status
    (``None``: no answer), ``reason`` the error's metadata-only text; ``provider`` names the
    provider the request goes to next. One event per switch, before the answer's other events.
    """

    prompt_name: str
    run_id: str
    turn: int
    failed_provider: str
    failed_model: str | None
    status: int | None
    reason: str
    provider: str


@frozen
class OutputRetried:
    """A final answer was not accepted (it did not parse, or a validator rejected it) and the
    model is asked for another: ``attempt`` counts the rejected answers so far (1 for the
    first), ``problems`` are what the model is told. Streamed, the rejected answer's text has
    already been shown; this event says to set it aside."""

    prompt_name: str
    run_id: str
    turn: int
    attempt: int
    problems: tuple[str, ...]


# -- a run's requests to its model, for observers (tracing, metrics): built only when watched --


@watched_event
@frozen
class EvaluationStarted:
    """A run began (or resumed): ``provider`` and ``model`` name its connection; a run nested
    in a tool call (a ``PromptTool``'s) names that call of the outer run (``parent_run_id``,
    ``parent_call_id``; see ``affordance.runtime.record.nesting``)."""

    prompt_name: str
    run_id: str
    provider: str
    model: str | None
    resumed: bool = False
    parent_run_id: str | None = None
    parent_call_id: str | None = None


@watched_event
@frozen
class EvaluationFailed:
    """A run raised ``error`` instead of returning (a provider error, output retries spent, a
    usage limit reached...); ``PromptExecuted`` marks the other way a run ends."""

    prompt_name: str
    run_id: str
    error: BaseException


@watched_event
@frozen
class ModelRequestSent:
    """A request of turn ``turn`` is going to the model (``streamed``: as a stream), to
    ``server`` (the connection's base URL; ``None`` when it does not say).

    It is published in a context private to the request (``contextvars``): what a handler sets
    there (a tracer's current span) holds while the request is sent — for a stream, until its
    first piece — and is gone when it ends."""

    prompt_name: str
    run_id: str
    turn: int
    provider: str
    model: str | None
    streamed: bool = False
    server: str | None = None


@watched_event
@frozen
class ModelAnswered:
    """The model answered turn ``turn``: ``provider``/``model`` who answered (a fallback's),
    ``response_model`` the model the response names (``None``: it names none), ``duration``
    seconds from sending to the whole answer, ``first_delta`` to the first piece of a streamed
    one (``None`` for a plain request)."""

    prompt_name: str
    run_id: str
    turn: int
    provider: str
    model: str | None
    response_id: str | None
    usage: Usage
    finish_reason: str
    duration: float
    first_delta: float | None = None
    response_model: str | None = None


@watched_event
@frozen
class ModelRequestFailed:
    """The request of turn ``turn`` failed after ``duration`` seconds with ``error``."""

    prompt_name: str
    run_id: str
    turn: int
    provider: str
    model: str | None
    error: BaseException
    duration: float


REQUEST_EVENTS = (
    EvaluationStarted,
    EvaluationFailed,
    ModelRequestSent,
    ModelAnswered,
    ModelRequestFailed,
)
"""The events a run builds only when someone watches one of them (see ``Evaluation``)."""

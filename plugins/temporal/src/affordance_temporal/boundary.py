"""What crosses the workflow boundary: small frozen envelopes, written and read with
``affordance.serde`` (never pickle), their transcripts in affordance's transcript format.

Temporal stores every workflow input, activity input and result, update and query answer in
the run's history as a payload; each one here is ``dump``-ed to JSON-like data before it is
handed to Temporal and ``parse``-d back into its envelope on the other side, so the history
holds plain JSON a person (or another language's worker) can read. An envelope's ``messages``
(a transcript) is written with ``affordance.transcript`` instead: the versioned format a
transcript is stored in everywhere, which keeps each call's arguments and each provider item
exactly as the provider sent them.

``RunInput``, ``ModelCall`` and ``ToolCallInput`` also carry the trace context the run was
started in (``trace``: the W3C entries of ``affordance.runtime.trace_carrier()``), so the
activities' spans join the caller's trace. An empty one is left out of the data: a run nobody
traces sends what a release before tracing sent, and an envelope written then reads with an
empty ``trace``.

A prompt crosses by reference (``PromptRef``): :mod:`affordance_temporal.prompt_refs` writes
one and reads it back against a registry's prompt.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal, TypeVar, cast

from affordance import UsageLimits
from affordance.adapters import NO_USAGE, Message, ProviderTurn, ToolCall, Usage
from affordance.serde import FieldError, ParseError, dump, parse
from affordance.transcript import TranscriptError
from affordance.transcript import from_data as transcript_from_data
from affordance.transcript import to_data as transcript_to_data
from affordance_temporal.options import RunOptions

__all__ = [
    "Answers",
    "CallData",
    "ConfirmationData",
    "ConfirmationRefusal",
    "ListingCall",
    "ModelAnswer",
    "ModelCall",
    "Overrides",
    "ParamsData",
    "PendingData",
    "PromptRef",
    "ResultData",
    "ResultKind",
    "RunInput",
    "RunResult",
    "RunStatus",
    "SpentUsage",
    "ToolAnswer",
    "ToolCallInput",
    "ToolListings",
    "from_data",
    "to_data",
]

EnvelopeT = TypeVar("EnvelopeT")

Overrides = tuple[tuple[tuple[str, ...], str], ...]
"""Visibility overrides as data: (section path, ``"full"`` or ``"summary"``) pairs."""

ResultKind = Literal["none", "typed", "error_info", "open_sections", "opaque"]


@dataclass(frozen=True, slots=True)
class ParamsData:
    """One params object of a prompt: its dataclass (``module.QualName``) and its fields."""

    type: str
    data: Any


@dataclass(frozen=True, slots=True)
class PromptRef:
    """A prompt by its registry name, and what it is rendered with: ``params``, visibility
    ``overrides`` and ``texts``, the prompt overrides document the run was started with (its
    JSON form, read once by the client: the worker applies what the caller's store held then)."""

    name: str
    params: tuple[ParamsData, ...] = ()
    overrides: Overrides = ()
    texts: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class RunInput:
    """The workflow's input. ``run_id`` defaults to the workflow id; ``limits`` bound the
    run as ``evaluate(limits=...)`` does; ``trace`` is the trace context the run was started
    in, handed to each of its activities (empty: none)."""

    prompt: PromptRef
    messages: tuple[Message, ...] = ()
    options: RunOptions = field(default_factory=RunOptions)
    run_id: str | None = None
    limits: UsageLimits | None = None
    trace: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ModelCall:
    """One model request: the ``ModelRequest`` minus what the worker rebuilds from the
    registry (the rendered prompt, its tools and hosted tools, the output schema).
    ``tools`` and ``hosted_tools`` are the names the workflow exposed, checked by the worker."""

    prompt: PromptRef
    run_id: str
    turn: int
    instructions: str | None
    messages: tuple[Message, ...]
    tools: tuple[str, ...] = ()
    hosted_tools: tuple[str, ...] = ()
    tool_choice: str | dict[str, Any] | None = None
    parallel_tool_calls: bool | None = None
    deadline_at: float | None = None
    outage_limit: float | None = None
    """``RunOptions.provider_outage_limit``: how long the request may be retried for
    transient provider errors, from its first attempt."""
    max_attempts: int = 3
    """``RunOptions.model_max_attempts``: the attempts for failures that are not the
    provider's (an adapter's bug, say)."""
    trace: dict[str, str] = field(default_factory=dict)
    """``RunInput.trace``: the request's spans join it."""


@dataclass(frozen=True, slots=True)
class ModelAnswer:
    """The model's turn, already normalized by the worker's adapter, and the typed outputs of
    the hosted tools its codecs parsed from it (as data, by tool name)."""

    turn: ProviderTurn
    hosted_outputs: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ToolCallInput:
    """One call the workflow prepared (validated, allowed, confirmed if destructive).
    ``arguments`` is the parsed JSON object; the worker parses it into the params type."""

    prompt: PromptRef
    run_id: str
    turn: int
    call: ToolCall
    arguments: dict[str, Any]
    max_attempts: int = 1
    retry_timeouts: bool = False
    deadline_at: float | None = None
    trace: dict[str, str] = field(default_factory=dict)
    """``RunInput.trace``: the call's span joins it."""


@dataclass(frozen=True, slots=True)
class ListingCall:
    """Asks a worker for the listings of the prompt's sections that list their tools at
    render (``PromptTemplate.tools_listings``)."""

    prompt: str
    trace: dict[str, str] = field(default_factory=dict)
    """``RunInput.trace``: the listing's work joins it."""


@dataclass(frozen=True, slots=True)
class ToolListings:
    """Each listed section's ``Section.tools_listing()`` by dotted path: recorded in the
    history, it is what the workflow renders those sections with for the whole run."""

    listings: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ResultData:
    """A ``ToolResult``. ``kind`` says how ``value`` is rebuilt; ``rendered`` is the value's
    text as the worker rendered it (what the model reads)."""

    message: str
    success: bool = True
    exclude_value_from_context: bool = False
    kind: ResultKind = "none"
    value: Any = None
    rendered: str = ""


@dataclass(frozen=True, slots=True)
class SpentUsage:
    """Usage a call's nested run spent on ``provider`` (``ToolContext.add_usage``)."""

    provider: str
    usage: Usage


@dataclass(frozen=True, slots=True)
class ToolAnswer:
    result: ResultData
    duration: float = 0.0
    attempts: int = 1
    error_code: str | None = None
    usage: tuple[SpentUsage, ...] = ()
    """What nested runs inside the call spent (a ``PromptTool``'s), for the run to count."""


@dataclass(frozen=True, slots=True)
class CallData:
    """One tool call of the run and its result (``PromptResponse.tool_results``)."""

    call: ToolCall
    result: ResultData
    params: Any = None
    turn: int = 0


@dataclass(frozen=True, slots=True)
class PendingData:
    """A destructive call waiting for its answer: validated arguments, for a person."""

    call_id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ConfirmationData:
    """The answer for one pending call."""

    call_id: str
    approved: bool
    message: str = ""


@dataclass(frozen=True, slots=True)
class Answers:
    """The ``confirm`` update: answers for calls pending now, all taken or none."""

    answers: tuple[ConfirmationData, ...] = ()


@dataclass(frozen=True, slots=True)
class ConfirmationRefusal:
    """Why the run refused a ``confirm`` update (the details of its failure):
    ``ConfirmationRefusedError``'s fields."""

    not_pending: tuple[str, ...] = ()
    pending: tuple[str, ...] = ()
    answered: tuple[str, ...] = ()
    finished: bool = False
    problem: str | None = None


@dataclass(frozen=True, slots=True)
class RunStatus:
    """Where a run is: ``running`` (a model request or tool calls in flight), ``waiting``
    (for the answers to ``pending``), or ``finished`` (its result is ready)."""

    state: Literal["running", "waiting", "finished"]
    turn: int = 0
    pending: tuple[PendingData, ...] = ()
    said: str | None = None
    """While it waits: the text the model wrote in the turn that asked for the pending calls
    (what a chat shows above the confirmation), if it wrote any."""
    tool_results: tuple[CallData, ...] = ()
    """While it waits: the calls run so far and their results (the suspended response's
    ``tool_results``: earlier turns', and those of the waiting turn that needed no answer)."""
    messages: tuple[Message, ...] = ()
    """While it waits: the run's transcript so far (the suspended response's ``messages``),
    ending with the model's turn that asked for the pending calls."""


@dataclass(frozen=True, slots=True)
class RunResult:
    """The workflow's result: what ``PromptResponse`` holds that can cross (not the session).
    ``prompt`` is the registry name, ``prompt_name`` the template's own name."""

    prompt: str
    prompt_name: str
    run_id: str
    output: Any = None
    text: str | None = None
    tool_results: tuple[CallData, ...] = ()
    hosted_outputs: dict[str, Any] = field(default_factory=dict)
    usage: Usage = NO_USAGE
    expansion: Overrides | None = None
    finish_reason: str = "stop"
    turns: int = 0
    messages: tuple[Message, ...] = ()


# -- data <-> envelopes ---------------------------------------------------------------------


_WITH_TRANSCRIPT = (RunInput, ModelCall, RunStatus, RunResult)
"""The envelopes holding a transcript (``messages``), written in the transcript format."""
_WITH_TRACE = (RunInput, ModelCall, ToolCallInput, ListingCall)
"""The envelopes carrying the run's trace context (``trace``), left out when empty."""


def to_data(envelope: object) -> dict[str, Any]:
    """An envelope as JSON-like data, for Temporal's payload converter; its ``messages`` as
    a transcript document (``affordance.transcript.to_data``); an empty ``trace`` left out."""
    if isinstance(envelope, _WITH_TRANSCRIPT):
        data = dump(replace(envelope, messages=()))
        data["messages"] = transcript_to_data(envelope.messages)
    else:
        data = dump(envelope)
    if not isinstance(data, dict):
        raise TypeError(f"{type(envelope).__qualname__} is not an envelope")
    if isinstance(envelope, _WITH_TRACE) and not envelope.trace:
        del data["trace"]
    return data


def from_data(envelope_type: type[EnvelopeT], data: Any) -> EnvelopeT:
    """Data back into its envelope; a shape that does not fit is a :class:`ParseError` (a
    transcript that does not read: one error at ``messages``, saying where in it)."""
    if (
        envelope_type not in _WITH_TRANSCRIPT
        or not isinstance(data, Mapping)
        or "messages" not in data
    ):
        return parse(envelope_type, data)
    envelope = parse(envelope_type, {**data, "messages": []})  # the rest; the transcript next
    try:
        messages = _transcript(data["messages"])
    except TranscriptError as error:
        problem = FieldError(("messages", *error.path), error.reason)
        raise ParseError([problem], type_name=envelope_type.__qualname__) from None
    return cast(EnvelopeT, replace(cast(Any, envelope), messages=messages))


def _transcript(data: Any) -> tuple[Message, ...]:
    """A transcript document; a list is the shape written before the transcript format
    (``serde``'s, each message by its fields), which the history of a run started before an
    upgrade still holds."""
    if isinstance(data, list):
        try:
            return parse(tuple[Message, ...], data)
        except ParseError as error:
            raise TranscriptError(str(error)) from None
    return transcript_from_data(data)

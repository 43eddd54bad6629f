"""The error hierarchy of affordance.

Every error carries the context a user needs to fix the problem: the section path, the tool
name, the dataclass involved. Errors raised *by tools* never escape an evaluation; they become
failed tool results (see ``affordance.tools.executor``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from affordance._frozen import frozen

__all__ = [
    "AffordanceError",
    "AttachmentError",
    "AttachmentTooLargeError",
    "ConversationConflictError",
    "ConversationStoreError",
    "OutputAttempt",
    "OutputRejected",
    "OutputValidationError",
    "OverridesError",
    "PromptError",
    "PromptEvaluationError",
    "PromptRenderError",
    "PromptValidationError",
    "RequestExtrasConflictError",
    "ToolError",
    "ToolValidationError",
    "TranscriptError",
    "TranscriptVersionError",
    "UnsupportedAttachmentError",
    "UnsupportedHostedConfigError",
]


class AffordanceError(Exception):
    """Base class of every error this library raises on purpose."""


class PromptError(AffordanceError):
    """A problem with a prompt, located by section path, tool name and dataclass."""

    def __init__(
        self,
        message: str,
        *,
        section_path: tuple[str, ...] = (),
        tool_name: str | None = None,
        dataclass: type[Any] | None = None,
        placeholder: str | None = None,
    ) -> None:
        self.message = message
        self.section_path = section_path
        self.tool_name = tool_name
        self.dataclass = dataclass
        self.placeholder = placeholder
        super().__init__(self._describe())

    def _describe(self) -> str:
        where: list[str] = []
        if self.section_path:
            where.append(f"section {'.'.join(self.section_path)!r}")
        if self.tool_name is not None:
            where.append(f"tool {self.tool_name!r}")
        if self.dataclass is not None:
            where.append(f"params {self.dataclass.__qualname__}")
        return f"{self.message} ({', '.join(where)})" if where else self.message


class PromptValidationError(PromptError):
    """A prompt, section or tool was declared wrongly; raised at construction."""


class PromptRenderError(PromptError):
    """A prompt could not be rendered with the params it was given."""


class PromptEvaluationError(AffordanceError):
    """An evaluation could not complete: the provider failed, or its answer was unusable.

    Tool failures never raise this; they go back to the model as failed tool results.
    ``transient`` says another attempt of the same request may succeed: the provider was
    rate-limited, overloaded or failed on its side, or the request was lost on the way before
    an answer (set by the adapters, after their own retries; a durable run retries on it).
    """

    def __init__(
        self,
        message: str,
        *,
        prompt_name: str | None = None,
        phase: str = "request",
        provider: str | None = None,
        status: int | None = None,
        request_id: str | None = None,
        raw_text: str | None = None,
        transient: bool = False,
    ) -> None:
        self.message = message
        self.transient = transient
        self.prompt_name = prompt_name
        self.phase = phase
        self.provider = provider
        self.status = status
        self.request_id = request_id
        self.raw_text = raw_text
        details = [f"phase={phase}"]
        if prompt_name is not None:
            details.append(f"prompt={prompt_name!r}")
        if provider is not None:
            details.append(f"provider={provider}")
        if status is not None:
            details.append(f"status={status}")
        if request_id is not None:
            details.append(f"request_id={request_id}")
        super().__init__(f"{message} ({', '.join(details)})")


class OutputRejected(AffordanceError):  # noqa: N818 - raised by users, named for what it says
    """Raised by an output validator (``PromptTemplate(output_validators=...)``) to ask the
    model for another answer; ``reason`` is what the model is told is wrong with this one."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


@frozen
class OutputAttempt:
    """One final answer that was not accepted: its raw text and what was wrong with it."""

    raw_text: str | None
    problems: tuple[str, ...]


class OutputValidationError(PromptEvaluationError):
    """The model's final answers kept failing to parse or validate until ``output_retries``
    ran out (phase ``output``). ``attempts`` holds every rejected answer in order, each with
    its raw text and problems; ``raw_text`` is the last one's."""

    def __init__(
        self,
        message: str,
        *,
        attempts: tuple[OutputAttempt, ...],
        prompt_name: str | None = None,
        provider: str | None = None,
    ) -> None:
        self.attempts = attempts
        super().__init__(
            message,
            prompt_name=prompt_name,
            phase="output",
            provider=provider,
            raw_text=attempts[-1].raw_text if attempts else None,
        )


class UnsupportedHostedConfigError(PromptEvaluationError):
    """A hosted tool's setting the chosen provider cannot honour (phase ``render``).

    Raised by the provider's codec while the request is built, so nothing is sent and no
    setting is silently dropped. ``field`` names the setting (as the tool kind's plugin lists
    them), ``provider`` the codec's provider, ``tool_name`` the hosted tool. Each hosted-tool
    plugin raises its own subclass; catch this class for all of them.
    """

    def __init__(
        self, message: str, *, field: str, provider: str, tool_name: str | None = None
    ) -> None:
        self.field = field
        self.tool_name = tool_name
        super().__init__(message, phase="render", provider=provider)


class RequestExtrasConflictError(PromptEvaluationError):
    """Request fields that hosted-tool codecs ask for (``request_extras``) cannot be merged
    (phase ``render``), raised while the request is built, so nothing is sent.

    Two codecs ask for different values of one field, or a codec asks for a field the adapter
    builds itself. ``field`` names the request field, ``tool_names`` the hosted tools whose
    codecs asked (two for a disagreement, one against the adapter), ``provider`` the codec
    provider.
    """

    def __init__(
        self,
        message: str,
        *,
        field: str,
        tool_names: tuple[str, ...],
        provider: str,
        prompt_name: str | None = None,
    ) -> None:
        self.field = field
        self.tool_names = tool_names
        super().__init__(message, prompt_name=prompt_name, phase="render", provider=provider)


class ToolValidationError(AffordanceError, ValueError):
    """Arguments for a tool were rejected; the model receives the message and may retry."""

    def __init__(self, message: str, *, tool_name: str | None = None) -> None:
        self.message = message
        self.tool_name = tool_name
        super().__init__(message)


class ToolError(AffordanceError):
    """A failure a tool reports on purpose, with guidance the model can act on.

    ``retryable`` errors are retried by the executor within its retry policy before they are
    reported; the payload of :meth:`to_dict` is what the model sees.
    """

    def __init__(
        self,
        code: str,
        message: str,
        retryable: bool = False,
        recover_action: str | None = None,
    ) -> None:
        self.code = code
        self.message = message
        self.retryable = retryable
        self.recover_action = recover_action
        super().__init__(f"{code}: {message}")

    def to_dict(self) -> Mapping[str, Any]:
        return {
            "error": self.message,
            "code": self.code,
            "retryable": self.retryable,
            "recover_action": self.recover_action,
        }


class TranscriptError(AffordanceError, ValueError):
    """A transcript that cannot be read or written in the transcript format
    (``affordance.transcript``): not JSON, not that format, a field missing or of the wrong
    type. ``path`` locates the problem (``("messages", 2, "tool_calls", 0, "arguments")``;
    empty for the document as a whole), ``reason`` says what is wrong there."""

    def __init__(self, reason: str, *, path: tuple[str | int, ...] = ()) -> None:
        self.reason = reason
        self.path = path
        super().__init__(self._describe())

    @property
    def where(self) -> str:
        """``path`` as it reads in the message: ``messages[2].tool_calls[0].arguments``."""
        dotted = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in self.path)
        return dotted.lstrip(".")

    def _describe(self) -> str:
        return (
            f"transcript at {self.where}: {self.reason}"
            if self.path
            else f"transcript: {self.reason}"
        )


class TranscriptVersionError(TranscriptError):
    """A transcript written in a newer version of the format than this affordance reads:
    ``found`` is its version, ``supported`` the newest one this affordance reads."""

    def __init__(self, found: int, supported: int) -> None:
        self.found = found
        self.supported = supported
        super().__init__(
            f"format version {found} is newer than the newest this affordance reads, version "
            f"{supported}; upgrade affordance to read it",
            path=("version",),
        )

    def _describe(self) -> str:
        return f"transcript: {self.reason}"


# -- conversations (affordance.conversations) --------------------------------------------------


class ConversationStoreError(AffordanceError):
    """A conversation store cannot do what was asked: it is closed, its database was written by
    a newer affordance (or is not a store's), or the database failed. ``conversation_id`` names
    the conversation concerned (``None``: the store as a whole)."""

    def __init__(self, message: str, *, conversation_id: str | None = None) -> None:
        self.message = message
        self.conversation_id = conversation_id
        super().__init__(message)


class ConversationConflictError(ConversationStoreError):
    """Another writer appended to the conversation since this one read it: ``expected`` is the
    length this writer saw, ``found`` the length the store holds. Nothing was appended."""

    def __init__(self, conversation_id: str, *, expected: int, found: int) -> None:
        self.expected = expected
        self.found = found
        super().__init__(
            f"conversation {conversation_id!r} has {found} messages, not the {expected} this "
            "writer read: another writer appended in between; load it again",
            conversation_id=conversation_id,
        )


# -- prompt overrides (affordance.prompt.overrides) --------------------------------------------


class OverridesError(AffordanceError, ValueError):
    """An overrides file that cannot be read or written: not JSON, not the overrides format, or
    a field of the wrong type. ``path`` is the file (``None`` for overrides not read from one),
    ``reason`` says what is wrong. A stale override is not an error: it is skipped and reported
    (``SkippedOverride``)."""

    def __init__(self, reason: str, *, path: str | None = None) -> None:
        self.reason = reason
        self.path = path
        super().__init__(f"overrides file {path}: {reason}" if path else f"overrides: {reason}")


# -- attachments (affordance.attachments) ------------------------------------------------------


class AttachmentError(AffordanceError, ValueError):
    """An ``Image`` or ``Document`` that cannot be built as given: both or neither of ``data``
    and ``url``, bytes of no type it can tell, a media type it does not take."""


class AttachmentTooLargeError(PromptEvaluationError):
    """A message of the caller's carries an attachment over the runner's
    ``max_attachment_bytes``; raised before any request is sent. (A tool result's attachment
    over the limit is not an error: it is left out and the model is told.)"""


class UnsupportedAttachmentError(PromptEvaluationError):
    """The provider cannot carry an attachment where a message puts it (a kind, or a place:
    a user message, a tool result); raised before the request is sent."""

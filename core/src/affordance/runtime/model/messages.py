"""The provider-neutral transcript of an evaluation: what was said, called and answered.

Messages take weak references: a model keeps each message's wire form for as long as the
message lives (:class:`affordance.adapters.WireForms`), so a request resending a long history
encodes only what is new."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeAlias

from affordance._frozen import frozen
from affordance._referable import WeaklyReferable
from affordance.attachments import Attachment  # at run time: durable runs read the hints

__all__ = ["AssistantMessage", "Message", "ToolCall", "ToolResultMessage", "UserMessage"]


@frozen
class ToolCall:
    """A function call the model made: ``arguments`` exactly as the provider sent them.

    Providers send a JSON string (OpenAI) or an object (Anthropic, Google); the executor
    parses and validates either form.
    """

    id: str
    name: str
    arguments: str | Mapping[str, Any]


@frozen
class UserMessage(WeaklyReferable):
    """What the user (or the caller) says: ``text``, and ``attachments`` — images and
    documents (``affordance.Image``, ``affordance.Document``) — sent with it."""

    text: str
    attachments: tuple[Attachment, ...] = ()


@frozen
class AssistantMessage(WeaklyReferable):
    """One model turn. ``provider_items`` are opaque items the provider needs echoed back
    (reasoning items, hosted-tool calls), as JSON-like dicts; ``provider`` names the provider
    whose wire format they are in (the loop sets it when there are items), so a request to
    another provider — a fallback, a conversation moved — leaves them out."""

    text: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    provider_items: tuple[Mapping[str, Any], ...] = ()
    provider: str | None = None


@frozen
class ToolResultMessage(WeaklyReferable):
    """The answer to one tool call, as text the model reads, and the ``attachments`` of the
    tool's result (a chart, a page it fetched)."""

    call_id: str
    name: str
    content: str
    is_error: bool = False
    attachments: tuple[Attachment, ...] = ()


Message: TypeAlias = UserMessage | AssistantMessage | ToolResultMessage

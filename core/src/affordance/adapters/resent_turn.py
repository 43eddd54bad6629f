"""An assistant turn as a wire format resends it: the turn's own items, then what they lack.

Every request resends the whole transcript, and a provider wants a turn back as it sent it:
reasoning with its signature, hosted-tool calls, text with its citations, in their order
(OpenAI's Responses output items, Anthropic's Messages content blocks). So the turn's
``provider_items`` of the wire format's own types are resent verbatim and in order; the rest of
its ``provider_items`` — another provider's, in a transcript that changed provider — are left
out. A turn recorded elsewhere, or built by hand, lacks some or all of those items: its text
and each call no item of its own carries are rebuilt, in the wire format's shapes. The shapes
are the plugin's; this rule is written once (:class:`ResentTurn`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from affordance._frozen import frozen
from affordance.runtime.model.messages import AssistantMessage, ToolCall

__all__ = ["ResentTurn"]


@frozen
class ResentTurn:
    """How one wire format resends an assistant turn.

    Its own items are those whose ``type`` is one of ``types`` or ends with ``suffix`` (a
    family of hosted-tool items, as ``_call``). An item of type ``text_type`` carries the
    turn's text; one of type ``call_type`` carries the call whose id is its ``call_id`` field.
    ``text(message.text)`` and ``call(tool_call)`` build what the items lack; the text goes
    first with ``text_first``, else after the items.
    """

    types: frozenset[str]
    suffix: str
    text_type: str
    call_type: str
    call_id: str
    text: Callable[[str], Mapping[str, Any]]
    call: Callable[[ToolCall], Mapping[str, Any]]
    text_first: bool = False

    def owns(self, item: Mapping[str, Any]) -> bool:
        """Whether ``item`` is one of this wire format's own (a provider item to resend)."""
        kind = item.get("type")
        return isinstance(kind, str) and (kind in self.types or kind.endswith(self.suffix))

    def items(self, message: AssistantMessage) -> list[Mapping[str, Any]]:
        """The turn as this wire format resends it, in a new list: its own items in order, its
        text when none of them carries it, and each call none of them carries, in order."""
        items: list[Mapping[str, Any]] = []
        echoed: set[Any] = set()  # the ids of the calls its own items carry
        echoed_text = False
        for item in message.provider_items:
            if not self.owns(item):
                continue
            items.append(item)
            kind = item["type"]
            if kind == self.call_type:
                echoed.add(item.get(self.call_id))
            if kind == self.text_type:
                echoed_text = True
        if message.text and not echoed_text:
            items.insert(0 if self.text_first else len(items), self.text(message.text))
        items.extend([self.call(call) for call in message.tool_calls if call.id not in echoed])
        return items

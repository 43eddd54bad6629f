"""Reading a Messages answer: a stream's events, and a whole ``message`` as the content blocks a
stream of it would bring, by one translator, so a plain turn and a streamed one are built by the
same code.

Streamed, the adapter frames the raw event stream (the HTTP response to a request sent
with ``stream=True``) with the core's SSE reader and hands each event here, parsed with one
``json.loads``; the event types are read through a table of handlers (core's
:class:`~affordance.adapters.StreamTranslator`). Each content block is rebuilt from its
``content_block_start`` and deltas (``text_delta``, ``input_json_delta``, ``citations_delta``,
``thinking_delta``, ``signature_delta``) into exactly the block a whole answer holds, and handed
over whole at ``content_block_stop`` as a provider item; text and tool arguments are also handed
over piece by piece as they come. A whole answer's block brings what its start and stop would,
read at once (nothing to rebuild).

The blocks are kept verbatim, in order, as the turn's ``provider_items`` (the next request
resends them) and, when hosted tools were declared, as its ``hosted_items`` too: a server tool's
codec reads ``server_tool_use`` / ``*_tool_result`` blocks and the cited text blocks, and needs
every text block to place a citation in the answer (the API cites whole blocks, without
offsets). An event that cannot be placed — a block started at an index already used, a delta or
stop for a block not open — is refused. ``message_stop`` ends the turn; a stream that ends
without it — the API's ``error`` event, or a body cut short, which the SDK reports as nothing at
all — is an error, never a shorter answer. The model the answer names is the message's ``model``
(streamed: ``message_start``'s message).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from affordance.adapters import (
    PAUSED,
    Delta,
    EventHandler,
    HostedActivity,
    ProviderItem,
    StreamFailedError,
    StreamTranslator,
    TextPiece,
    ToolCallArguments,
    ToolCallReady,
    UnusableResponseError,
    UsageFields,
    describe_error_body,
    event_field,
    expect,
    string_or_none,
)

__all__ = ["FINISH_REASONS", "MessagesReply"]

_index = event_field("index", int)  # the content block an event is about

FINISH_REASONS: Mapping[str, str] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "pause_turn": PAUSED,
}
"""Anthropic's stop reasons in the core's words (``refusal`` is the same in both)."""

usage_of = UsageFields(
    input=("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"),
    output=("output_tokens",),
    cached=("cache_read_input_tokens",),
    reasoning=("output_tokens_details.thinking_tokens",),
).read
"""A message's usage. Input counts every input token: uncached, written to the cache and read
from it."""


@dataclass(slots=True)
class _Block:
    block: dict[str, Any]
    rebuilt: str | None = None  # the field its pieces rebuild: text, thinking or input
    parts: list[str] = field(default_factory=list)
    stopped: bool = False


class MessagesReply(StreamTranslator):
    """One Messages answer, event by event; call it with each SSE event (or read a whole
    ``message`` with :meth:`whole`)."""

    __slots__ = ("_blocks", "_continued", "_stop_details", "_usage")

    def __init__(self, *, hosted: bool, continued: tuple[Mapping[str, Any], ...] = ()) -> None:
        super().__init__(hosted=hosted)
        self._continued = continued
        self._blocks: dict[int, _Block] = {}
        self._usage: dict[str, Any] = {}
        self._stop_details: Any = None

    # -- message -----------------------------------------------------------------------------

    def whole(self, data: Any) -> list[Delta]:
        """A whole answer: the deltas its content blocks make (:meth:`whole_block`)."""
        data = expect(data, dict, "expected a JSON object, got {type}")
        if data.get("type") == "error":
            detail = describe_error_body(data, "no message", ("type",))
            raise UnusableResponseError(f"the body is an error: {detail}")
        content = expect(data.get("content"), list, "the message has no content list")
        deltas = self.start(data)
        for index, entry in enumerate(content):
            block = expect(entry, dict, "a content block is not an object")
            deltas.extend(self.whole_block(index, block))
        self.stop_with(data, None)
        deltas.extend(self.finish())
        return deltas

    def start(self, message: Mapping[str, Any]) -> list[Delta]:
        """The message begins: its id, model and input usage kept, and the paused turn this
        answer continues handed to the codecs."""
        self.response_id = string_or_none(message.get("id"))
        self.response_model = string_or_none(message.get("model")) or None
        usage = message.get("usage")
        if isinstance(usage, dict):
            self._usage.update(usage)
        return [ProviderItem(block, echo=False, hosted=True) for block in self._continued]

    def stop_with(self, delta: Mapping[str, Any], usage: Any) -> None:
        """The stop reason and its details, and the cumulative usage (a null count keeps what
        the start said)."""
        if "stop_reason" in delta:
            self.reason = delta["stop_reason"]
        if "stop_details" in delta:
            self._stop_details = delta["stop_details"]
        if isinstance(usage, dict):
            self._usage.update((k, v) for k, v in usage.items() if v is not None)

    def finish(self) -> list[Delta]:
        """The end of the answer: the refusal's explanation, when the API gives one, and the
        turn's end."""
        details = self._stop_details
        explanation = details.get("explanation") if isinstance(details, dict) else None
        out: list[Delta] = []
        if self.reason == "refusal" and isinstance(explanation, str) and explanation:
            out.append(self.refusal(explanation))
        out.append(self.turn_end(usage_of(self._usage), self.reason, FINISH_REASONS))
        return out

    def _message_stop(self, payload: dict[str, Any]) -> list[Delta]:
        if self.reason is None:
            raise UnusableResponseError("the stream ended without a stop reason")
        return self.finish()

    def _message_delta(self, payload: dict[str, Any]) -> Sequence[Delta]:
        self.stop_with(payload.get("delta") or {}, payload.get("usage"))
        return ()

    def _error(self, payload: dict[str, Any]) -> Sequence[Delta]:
        raise StreamFailedError(describe_error_body(payload, "no message", ("type",)))

    # -- content blocks ----------------------------------------------------------------------

    def whole_block(self, index: int, block: dict[str, Any]) -> list[Delta]:
        """A whole answer's block: the deltas its start and stop bring in a stream. With no
        pieces in between there is nothing to rebuild, so the block is kept as it came, never
        changed (a call's input that is no object is echoed as an empty one, in a copy)."""
        out = list(self._opened(index, block))
        if index in self.calls and "input" in block:  # a tool_use block: its call is ready
            arguments = block["input"]
            if not isinstance(arguments, dict):  # for the executor to report
                arguments, block = json.dumps(arguments), {**block, "input": {}}
            out.append(ToolCallReady(index, arguments))
        out.append(ProviderItem(block, echo=True, hosted=self.hosted))
        return out

    def block_start(self, index: int, started: Any) -> Sequence[Delta]:
        """A block begins at ``index``, to be rebuilt from the deltas that follow."""
        if not isinstance(started, dict):
            raise UnusableResponseError("a content_block_start event has no block object")
        if index in self._blocks:
            raise UnusableResponseError(f"a second content block started at index {index}")
        block = dict(started)
        state = self._blocks[index] = _Block(block)
        opened = self._opened(index, block)
        kind = block.get("type")
        if kind == "text":
            state.rebuilt, state.parts = "text", [block["text"]]
        elif kind == "thinking" and isinstance(block.get("thinking"), str):
            state.rebuilt, state.parts = "thinking", [block["thinking"]]
        elif "input" in block:  # tool_use, server_tool_use, mcp_tool_use: input comes in pieces
            state.rebuilt = "input"
        return opened

    def _opened(self, index: int, block: dict[str, Any]) -> Sequence[Delta]:
        """What a block's start brings, streamed or whole: its text, a call begun, a server tool
        at work."""
        kind = block.get("type")
        if kind == "text":
            text = expect(block.get("text"), str, "a text block has no text")
            return (TextPiece(text),) if text else ()
        if kind == "tool_use":
            lacking = "a tool_use block lacks its id or name"
            return (self.begin_call(index, block.get("id"), block.get("name"), lacking=lacking),)
        if kind == "server_tool_use":
            return (HostedActivity(kind, "in_progress", block.get("id")),)
        if isinstance(kind, str) and kind.endswith("_tool_result"):
            return (HostedActivity(kind, "completed", block.get("tool_use_id")),)
        return ()

    def _open(self, index: int, event: str) -> _Block:
        """The block a delta or stop event names: one that started and has not stopped."""
        state = self._blocks.get(index)
        if state is None or state.stopped:
            where = "never started" if state is None else "already stopped"
            raise UnusableResponseError(
                f"a {event} event names the block at index {index}, which {where}"
            )
        return state

    def _delta(self, payload: dict[str, Any]) -> Sequence[Delta]:
        index = _index(payload)
        state = self._open(index, "content_block_delta")
        delta = payload["delta"]
        kind = delta["type"]
        if kind == "text_delta":
            state.parts.append(delta["text"])
            return (TextPiece(delta["text"]),)
        if kind == "input_json_delta":
            state.parts.append(delta["partial_json"])
            if index in self.calls:
                return (ToolCallArguments(index, delta["partial_json"]),)
        elif kind == "citations_delta":
            citations = state.block.get("citations")
            if not isinstance(citations, list):
                citations = state.block["citations"] = []
            citations.append(delta["citation"])
        elif kind == "thinking_delta":
            state.parts.append(delta["thinking"])
        elif kind == "signature_delta":
            state.block["signature"] = delta["signature"]
        return ()

    def block_stop(self, index: int, event: str) -> list[Delta]:
        """A block is complete: rebuilt from its pieces, kept to echo, a call made ready."""
        state = self._open(index, event)
        state.stopped = True
        block = state.block
        out: list[Delta] = []
        if state.rebuilt == "input":
            arguments = _input(state.parts, block["input"])
            if isinstance(arguments, dict):
                block["input"] = arguments
            elif index in self.calls:
                block["input"] = {}  # echoed as an object; the call reports the bad text
            if index in self.calls:
                out.append(ToolCallReady(index, arguments))
        elif state.rebuilt is not None:
            block[state.rebuilt] = "".join(state.parts)
        out.append(ProviderItem(block, echo=True, hosted=self.hosted))
        return out

    handlers: ClassVar[Mapping[str, EventHandler]] = {
        "content_block_delta": _delta,
        "content_block_start": lambda self, p: self.block_start(_index(p), p["content_block"]),
        "content_block_stop": lambda self, p: self.block_stop(_index(p), "content_block_stop"),
        "message_start": lambda self, payload: self.start(payload["message"]),
        "message_delta": _message_delta,
        "message_stop": _message_stop,
        "error": _error,
    }


def _input(parts: list[str], start: Any) -> dict[str, Any] | str | None:
    """The input object the pieces spell (None when they spell none: the call keeps their
    text); without pieces, the start's input (its JSON text when it is no object, for the
    executor to report)."""
    text = "".join(parts)
    if not text.strip():
        return dict(start) if isinstance(start, dict) else json.dumps(start)
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None

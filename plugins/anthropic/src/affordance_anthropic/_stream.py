"""Reading a streamed Messages answer: SSE lines into events, events into the core's deltas.

The adapter reads the raw event stream (the HTTP response of the client's ``post`` with
``stream=True``), frames it with the core's SSE reader and hands each event here, parsed with
one ``json.loads``, skipping the SDK's per-event models. Each content block is rebuilt from
its ``content_block_start`` and deltas (``text_delta``, ``input_json_delta``,
``citations_delta``, ``thinking_delta``, ``signature_delta``) into exactly the block a plain
answer holds, and handed over whole at ``content_block_stop`` as a provider item; text and tool
arguments are also handed over piece by piece as they come. An event that cannot be placed — a
block started at an index already used, a delta or stop for a block not open — is refused.
``message_stop`` ends the turn; a stream that ends without it — the API's ``error`` event, or
a body cut short, which the SDK reports as nothing at all — is an error, never a shorter
answer.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from affordance.adapters import (
    Delta,
    HostedActivity,
    ProviderItem,
    RefusalPiece,
    SseEvent,
    StreamFailedError,
    TextPiece,
    ToolCallArguments,
    ToolCallBegun,
    ToolCallReady,
    TurnEnd,
    UnusableResponseError,
    parse_json,
)
from affordance_anthropic._reply import finish_reason, refusal_of, usage_of

__all__ = ["StreamTranslator"]


@dataclass(slots=True)
class _Block:
    block: dict[str, Any]
    parts: list[str] = field(default_factory=list)
    call_index: int | None = None
    stopped: bool = False


class StreamTranslator:
    """One streamed answer, event by event; ``done`` once ``message_stop`` was read."""

    __slots__ = (
        "_blocks",
        "_calls",
        "_continued",
        "_hosted",
        "_response_id",
        "_stop_details",
        "_stop_reason",
        "_usage",
        "done",
    )

    def __init__(self, *, hosted: bool, continued: tuple[Mapping[str, Any], ...] = ()) -> None:
        self._hosted = hosted
        self._continued = continued
        self._blocks: dict[int, _Block] = {}
        self._calls = 0
        self._usage: dict[str, Any] = {}
        self._stop_reason: Any = None
        self._stop_details: Any = None
        self._response_id: str | None = None
        self.done = False

    def __call__(self, event: SseEvent) -> Iterator[Delta]:
        """The deltas of one event."""
        if event.event == "ping":
            return
        payload = parse_json(event.data)
        if not isinstance(payload, dict):
            raise UnusableResponseError(f"an event is not a JSON object: {event.data[:200]}")
        kind = event.event or payload.get("type")
        try:
            if kind == "content_block_delta":
                yield from self._delta(payload)
            elif kind == "content_block_start":
                yield from self._start(payload)
            elif kind == "content_block_stop":
                yield from self._stop(payload)
            elif kind == "message_start":
                yield from self._message_start(payload)
            elif kind == "message_delta":
                self._message_delta(payload)
            elif kind == "message_stop":
                yield from self._message_stop()
            elif kind == "error":
                details = payload.get("error")
                details = details if isinstance(details, dict) else {}
                error_type = details.get("type")
                message = str(details.get("message") or "no message")
                raise StreamFailedError(f"{error_type}: {message}" if error_type else message)
        except (KeyError, TypeError, AttributeError) as error:
            raise UnusableResponseError(f"a {kind} event is not shaped as documented") from error

    # -- message -----------------------------------------------------------------------------

    def _message_start(self, payload: dict[str, Any]) -> Iterator[Delta]:
        for block in self._continued:  # the paused turn this answer continues, for the codecs
            yield ProviderItem(block, echo=False, hosted=True)
        message = payload["message"]
        response_id = message.get("id")
        self._response_id = response_id if isinstance(response_id, str) else None
        usage = message.get("usage")
        if isinstance(usage, dict):
            self._usage.update(usage)

    def _message_delta(self, payload: dict[str, Any]) -> None:
        delta = payload.get("delta") or {}
        if "stop_reason" in delta:
            self._stop_reason = delta["stop_reason"]
        if "stop_details" in delta:
            self._stop_details = delta["stop_details"]
        usage = payload.get("usage")
        if isinstance(usage, dict):  # cumulative counts; a null keeps what message_start said
            self._usage.update((k, v) for k, v in usage.items() if v is not None)

    def _message_stop(self) -> Iterator[Delta]:
        if self._stop_reason is None:
            raise UnusableResponseError("the stream ended without a stop reason")
        self.done = True
        refusal = refusal_of(self._stop_reason, self._stop_details)
        if refusal is not None:
            yield RefusalPiece(refusal)
        yield TurnEnd(
            usage_of(self._usage),
            finish_reason(self._stop_reason, self._calls > 0),
            self._response_id,
        )

    # -- content blocks ----------------------------------------------------------------------

    def _start(self, payload: dict[str, Any]) -> Iterator[Delta]:
        started = payload["content_block"]
        if not isinstance(started, dict):
            raise UnusableResponseError("a content_block_start event has no block object")
        index = payload["index"]
        if index in self._blocks:
            raise UnusableResponseError(f"a second content block started at index {index}")
        block = dict(started)
        state = _Block(block)
        self._blocks[index] = state
        kind = block["type"]
        if kind == "text":
            text = block.get("text") or ""
            if text:
                state.parts.append(text)
                yield TextPiece(text)
        elif kind == "tool_use":
            call_id, name = block.get("id"), block.get("name")
            if not isinstance(call_id, str) or not isinstance(name, str):
                raise UnusableResponseError("a tool_use block lacks its id or name")
            state.call_index = self._calls
            self._calls += 1
            yield ToolCallBegun(state.call_index, call_id, name)
        elif kind == "thinking":
            state.parts.append(block.get("thinking") or "")
        elif kind == "server_tool_use":
            yield HostedActivity(kind, "in_progress", block.get("id"))
        elif kind.endswith("_tool_result"):
            yield HostedActivity(kind, "completed", block.get("tool_use_id"))

    def _open(self, payload: dict[str, Any], kind: str) -> _Block:
        """The block a delta or stop event names: one that started and has not stopped."""
        index = payload["index"]
        state = self._blocks.get(index)
        if state is None or state.stopped:
            where = "never started" if state is None else "already stopped"
            raise UnusableResponseError(
                f"a {kind} event names the block at index {index}, which {where}"
            )
        return state

    def _delta(self, payload: dict[str, Any]) -> Iterator[Delta]:
        state = self._open(payload, "content_block_delta")
        delta = payload["delta"]
        kind = delta["type"]
        if kind == "text_delta":
            text = delta["text"]
            state.parts.append(text)
            yield TextPiece(text)
        elif kind == "input_json_delta":
            piece = delta["partial_json"]
            state.parts.append(piece)
            if state.call_index is not None:
                yield ToolCallArguments(state.call_index, piece)
        elif kind == "citations_delta":
            citations = state.block.get("citations")
            if not isinstance(citations, list):
                citations = state.block["citations"] = []
            citations.append(delta["citation"])
        elif kind == "thinking_delta":
            state.parts.append(delta["thinking"])
        elif kind == "signature_delta":
            state.block["signature"] = delta["signature"]

    def _stop(self, payload: dict[str, Any]) -> Iterator[Delta]:
        state = self._open(payload, "content_block_stop")
        state.stopped = True
        block = state.block
        kind = block["type"]
        if kind == "text":
            block["text"] = "".join(state.parts)
        elif kind == "thinking":
            block["thinking"] = "".join(state.parts)
        elif "input" in block:  # tool_use, server_tool_use, mcp_tool_use: input came in pieces
            arguments = _parsed_input(state.parts, block["input"])
            if arguments is not None:
                block["input"] = arguments
            elif state.call_index is not None:
                block["input"] = {}  # echoed as an object; the call reports the bad text
            if state.call_index is not None:
                yield ToolCallReady(state.call_index, arguments)
        yield ProviderItem(block, echo=True, hosted=self._hosted)


def _parsed_input(parts: list[str], start: Any) -> dict[str, Any] | None:
    """The input object the pieces spell; None when they do not spell one."""
    text = "".join(parts)
    if not text.strip():
        return dict(start) if isinstance(start, dict) else {}
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None

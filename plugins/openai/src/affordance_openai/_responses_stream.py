"""Responses streaming: each typed SSE event as the core's deltas.

Text, refusals and function-call arguments arrive as ``*.delta`` events; each finished output
item (``response.output_item.done``) is kept, in order, as an item to echo back — and for the
hosted-tool codecs when hosted tools were declared — exactly as a plain response's ``output``
list is. Hosted tools report progress as ``response.<kind>_call.<status>``. The turn ends with
``response.completed`` or ``response.incomplete``; ``response.failed`` and ``error`` events are
the provider reporting a failure mid-stream.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
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
from affordance_openai._responses import failure, finish_reason, usage_of

__all__ = ["ResponsesStream"]

_ENDS = frozenset({"response.completed", "response.incomplete"})
_NOTHING_NEW = frozenset(
    {
        "response.created",
        "response.in_progress",
        "response.content_part.added",
        "response.content_part.done",
        "response.output_text.done",
        "response.refusal.done",
        "response.function_call_arguments.done",
    }
)
"""Events whose content arrives again elsewhere (the deltas, ``output_item.done``, the final
response): a good part of every stream, answered before anything else is looked at."""


class ResponsesStream:
    """The translation of one Responses stream; call it with each SSE event."""

    __slots__ = ("_calls", "_complete", "_hosted", "_refusal")

    def __init__(self, *, hosted: bool) -> None:
        self._hosted = hosted
        self._calls: set[int] = set()
        self._complete: set[int] = set()  # the output indexes whose item is complete
        self._refusal = False

    def __call__(self, event: SseEvent) -> Iterable[Delta]:
        data = parse_json(event.data)
        if not isinstance(data, dict):
            raise UnusableResponseError(f"an event is {type(data).__name__}, not an object")
        kind = data.get("type", event.event)
        if kind == "response.output_text.delta":
            return (TextPiece(_text(data, "delta")),)
        if not isinstance(kind, str) or kind in _NOTHING_NEW:
            return ()  # a type that is no string is no event this adapter knows
        if kind == "response.function_call_arguments.delta":
            return (ToolCallArguments(_index(data), _text(data, "delta")),)
        if kind == "response.output_item.added":
            return self._added(data)
        if kind == "response.output_item.done":
            return self._done(data)
        if kind == "response.refusal.delta":
            self._refusal = True
            return (RefusalPiece(_text(data, "delta")),)
        if kind in _ENDS:
            return (self._end(data),)
        if kind == "response.failed":
            response = data.get("response")
            raise StreamFailedError(failure(response if isinstance(response, dict) else {}))
        if kind == "error":
            raise StreamFailedError(_error(data))
        return _activity(kind, data)

    def _added(self, data: Mapping[str, Any]) -> Iterable[Delta]:
        item = data.get("item")
        if not isinstance(item, dict) or item.get("type") != "function_call":
            return ()
        call_id, name = item.get("call_id"), item.get("name")
        if not isinstance(call_id, str) or not isinstance(name, str):
            raise UnusableResponseError("a function_call item lacks call_id or name")
        index = _index(data)
        if index in self._calls:
            raise UnusableResponseError(
                f"a second function_call item was added at output_index {index}"
            )
        self._calls.add(index)
        return (ToolCallBegun(index, call_id, name),)

    def _done(self, data: Mapping[str, Any]) -> Iterable[Delta]:
        item = data.get("item")
        if not isinstance(item, dict):
            raise UnusableResponseError("an output_item.done event has no item")
        index = _index(data)
        if index in self._complete:
            raise UnusableResponseError(f"a second item was done at output_index {index}")
        self._complete.add(index)
        out: list[Delta] = [ProviderItem(item, echo=True, hosted=self._hosted)]
        if index in self._calls:
            arguments = item.get("arguments")
            out.append(ToolCallReady(index, arguments if isinstance(arguments, str) else None))
        return out

    def _end(self, data: Mapping[str, Any]) -> TurnEnd:
        response = data.get("response")
        if not isinstance(response, dict):
            raise UnusableResponseError("the final event carries no response")
        response_id = response.get("id")
        return TurnEnd(
            usage_of(response.get("usage")),
            finish_reason(response, bool(self._calls), self._refusal),
            response_id if isinstance(response_id, str) else None,
        )


def _activity(kind: str, data: Mapping[str, Any]) -> Iterable[Delta]:
    """``response.web_search_call.searching`` and the like: a hosted tool at work."""
    parts = kind.split(".")
    if len(parts) != 3 or parts[0] != "response" or not parts[1].endswith("_call"):
        return ()
    item_id = data.get("item_id")
    return (HostedActivity(parts[1], parts[2], item_id if isinstance(item_id, str) else None),)


def _index(data: Mapping[str, Any]) -> int:
    index = data.get("output_index")
    if not isinstance(index, int):
        raise UnusableResponseError(f"a {data.get('type')} event lacks its output_index")
    return index


def _text(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str):
        raise UnusableResponseError(f"a {data.get('type')} event lacks its {key}")
    return value


def _error(data: Mapping[str, Any]) -> str:
    error = data.get("error")
    source = error if isinstance(error, dict) else data
    code, message = source.get("code"), source.get("message")
    return f"{code}: {message}" if code else str(message)

"""Chat Completions streaming: each ``chat.completion.chunk`` as the core's deltas.

With ``stream_options.include_usage`` the usage arrives in a last chunk whose ``choices`` is
empty, before ``data: [DONE]``; the turn ends at ``[DONE]``. Tool calls arrive as fragments keyed
by ``index``: the first carries the id and name, the rest pieces of the arguments text (a
fragment naming another call at an index already begun is refused, never folded in). An
``{"error": ...}`` chunk is the provider reporting a failure mid-stream; a stream with no choice
in any chunk is unusable, as a completion with no choices is.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from affordance.adapters import (
    NO_USAGE,
    Delta,
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
    Usage,
    describe_error_body,
    parse_json,
)
from affordance_openai._chat import finish_reason, hosted_item, usage_of

__all__ = ["ChatStream"]


class ChatStream:
    """The translation of one Chat Completions stream; call it with each SSE event."""

    __slots__ = (
        "_annotations",
        "_calls",
        "_chosen",
        "_hosted",
        "_reason",
        "_refusal",
        "_response_id",
        "_text",
        "_usage",
    )

    def __init__(self, *, hosted: bool = False) -> None:
        self._hosted = hosted
        self._text: list[str] = []
        self._annotations: list[Any] = []
        self._calls: dict[int, tuple[str, str]] = {}  # index: (id, name) of the call begun
        self._chosen = False
        self._refusal = False
        self._reason: Any = None
        self._usage: Usage = NO_USAGE
        self._response_id: str | None = None

    def __call__(self, event: SseEvent) -> Iterable[Delta]:
        if event.data == "[DONE]":
            return self._end()
        chunk = parse_json(event.data)
        if not isinstance(chunk, dict):
            raise UnusableResponseError(f"a chunk is {type(chunk).__name__}, not an object")
        error = chunk.get("error")
        if error is not None:
            raise StreamFailedError(describe_error_body({"error": error}, str(error)))
        if self._response_id is None and isinstance(chunk.get("id"), str):
            self._response_id = chunk["id"]
        if isinstance(chunk.get("usage"), dict):
            self._usage = usage_of(chunk["usage"])
        choices = chunk.get("choices")
        if not choices:
            return ()
        if not isinstance(choices, list):
            raise UnusableResponseError("a chunk's choices are not a list")
        choice = choices[0]
        if not isinstance(choice, dict):
            raise UnusableResponseError("a chunk's choice is not an object")
        self._chosen = True
        if choice.get("finish_reason"):
            self._reason = choice["finish_reason"]
        delta = choice.get("delta")
        return self._deltas(delta) if isinstance(delta, dict) else ()

    def _deltas(self, delta: dict[str, Any]) -> Iterable[Delta]:
        content = delta.get("content")
        calls = delta.get("tool_calls")
        if not calls and delta.get("refusal") is None and not self._hosted:  # most chunks
            return (TextPiece(content),) if isinstance(content, str) and content else ()
        out: list[Delta] = []
        if isinstance(content, str) and content:
            out.append(TextPiece(content))
            if self._hosted:
                self._text.append(content)
        annotations = delta.get("annotations")
        if self._hosted and isinstance(annotations, list):
            self._annotations.extend(annotations)
        refusal = delta.get("refusal")
        if isinstance(refusal, str) and refusal:
            self._refusal = True
            out.append(RefusalPiece(refusal))
        if calls is not None and not isinstance(calls, list):
            raise UnusableResponseError("a chunk's tool calls are not a list")
        for fragment in calls or ():
            out.extend(self._call_fragment(fragment))
        return out

    def _call_fragment(self, fragment: Any) -> list[Delta]:
        if not isinstance(fragment, dict) or not isinstance(fragment.get("index"), int):
            raise UnusableResponseError("a tool call fragment lacks its index")
        if fragment.get("type", "function") != "function":
            return []  # custom (grammar) tools are never declared by this adapter
        index = fragment["index"]
        function = fragment.get("function")
        if function is None:
            function = {}
        elif not isinstance(function, dict):
            raise UnusableResponseError("a tool call fragment's function is not an object")
        out: list[Delta] = []
        call_id, name = fragment.get("id"), function.get("name")
        begun = self._calls.get(index)
        if begun is None:
            if not isinstance(call_id, str) or not isinstance(name, str):
                raise UnusableResponseError("a tool call's first fragment lacks its id or name")
            self._calls[index] = (call_id, name)
            out.append(ToolCallBegun(index, call_id, name))
        elif (call_id or begun[0]) != begun[0] or (name or begun[1]) != begun[1]:
            # A later fragment may repeat its call's id and name; naming another call, it is
            # a second call at an index still open, which cannot be placed.
            raise UnusableResponseError(
                f"a tool call fragment at index {index} names another call than the one "
                "begun there; two calls cannot share an index"
            )
        arguments = function.get("arguments")
        if isinstance(arguments, str) and arguments:
            out.append(ToolCallArguments(index, arguments))
        return out

    def _end(self) -> list[Delta]:
        if not self._chosen:
            raise UnusableResponseError("the stream carried no choices")
        out: list[Delta] = [ToolCallReady(index) for index in self._calls]
        if self._hosted:
            text = "".join(self._text) or None
            out.append(ProviderItem(hosted_item(text, self._annotations), echo=False, hosted=True))
        reason = finish_reason(self._reason, bool(self._calls), self._refusal)
        out.append(TurnEnd(self._usage, reason, self._response_id))
        return out

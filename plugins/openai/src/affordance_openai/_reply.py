"""Reading an OpenAI answer: one translator per API, fed a stream's events or a whole answer
read as the stream of it would be, so plain and streamed turns are built by the same code
(``specs/adapters/openai.md``, "Streaming"; the event mappings: ``specs/STREAMING.md``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from affordance.adapters import (
    NO_USAGE,
    Delta,
    EventHandler,
    HostedActivity,
    ProviderItem,
    SseEvent,
    StreamFailedError,
    StreamTranslator,
    TextPiece,
    ToolCallArguments,
    ToolCallBegun,
    ToolCallReady,
    UnusableResponseError,
    Usage,
    UsageFields,
    describe_error_body,
    event_field,
    expect,
    parse_json,
    string_or_none,
)

__all__ = ["ChatReply", "ResponsesReply"]

# -- Responses ---------------------------------------------------------------------------------

_INCOMPLETE_REASONS = {"max_output_tokens": "length"}  # the others are the core's words already

_index = event_field("output_index", int)  # the output item an event is about
_delta = event_field("delta", str)  # an event's piece of text

_responses_usage = UsageFields(
    input=("input_tokens",),
    output=("output_tokens",),
    cached=("input_tokens_details.cached_tokens",),
    reasoning=("output_tokens_details.reasoning_tokens",),
).read


class ResponsesReply(StreamTranslator):
    """Translates one Responses answer: call it with each SSE event, or use :meth:`whole`."""

    __slots__ = ("_complete",)

    def __init__(self, *, hosted: bool) -> None:
        super().__init__(hosted=hosted)
        self._complete: set[int] = set()  # the output indexes whose item is complete

    def whole(self, data: Any) -> list[Delta]:
        """A whole response: the deltas of its output items, as a stream brings them."""
        data = expect(data, dict, "expected a JSON object, got {type}")
        status = data.get("status")
        if status == "failed":
            raise UnusableResponseError(_failure(data))
        if status not in ("completed", "incomplete", None):
            raise UnusableResponseError(f"the response is {status!r}, not completed")
        output = expect(data.get("output"), list, "the response has no output list")
        deltas: list[Delta] = []
        for index, entry in enumerate(output):
            item = expect(entry, dict, "an output item is not an object")
            kind = item.get("type")
            if kind == "function_call":
                deltas.append(self._begin(index, item))
            elif kind == "message":  # its text and refusal, which a stream sends as deltas
                deltas.extend(self.message(item))
            deltas.extend(self._complete_item(index, item))
        deltas.extend(self.finish(data))
        return deltas

    def added(self, index: int, item: Any) -> Sequence[Delta]:
        """An output item begins: a function call, its id and name."""
        if not isinstance(item, dict) or item.get("type") != "function_call":
            return ()
        return (self._begin(index, item),)

    def _begin(self, index: int, item: dict[str, Any]) -> ToolCallBegun:
        lacking = "a function_call item lacks call_id or name"
        twice = "a second function_call item was added at output_index {index}"
        call_id, name = item.get("call_id"), item.get("name")
        return self.begin_call(index, call_id, name, lacking=lacking, twice=twice)

    def message(self, item: Mapping[str, Any]) -> list[Delta]:
        """The text and refusal of a whole ``message`` item (a stream sends them as deltas)."""
        content = expect(item.get("content") or [], list, "a message's content is not a list")
        out: list[Delta] = []
        for entry in content:
            part = expect(entry, dict, "a message part is not an object")
            if part.get("type") == "output_text" and isinstance(part.get("text"), str):
                out.append(TextPiece(part["text"]))
            elif part.get("type") == "refusal" and isinstance(part.get("refusal"), str):
                out.append(self.refusal(part["refusal"]))
        return out

    def _done(self, data: dict[str, Any]) -> Sequence[Delta]:
        """``response.output_item.done``: an output item is complete, once per output index."""
        item = expect(data.get("item"), dict, "an output_item.done event has no item")
        index = _index(data)
        if index in self._complete:
            raise UnusableResponseError(f"a second item was done at output_index {index}")
        self._complete.add(index)
        return self._complete_item(index, item)

    def _complete_item(self, index: int, item: dict[str, Any]) -> Sequence[Delta]:
        """A complete output item: kept to echo, and a function call made ready."""
        kept = ProviderItem(item, echo=True, hosted=self.hosted)
        if index not in self.calls:
            return (kept,)
        arguments = item.get("arguments")
        return kept, ToolCallReady(index, None if arguments is None else _arguments(arguments))

    def finish(self, response: Mapping[str, Any]) -> Sequence[Delta]:
        """The turn's end, from the (completed or incomplete) response object."""
        if response.get("status") == "incomplete":
            details = response.get("incomplete_details")
            reason = (details.get("reason") if isinstance(details, dict) else None) or "incomplete"
        else:
            reason = "refusal" if self.refused else None
        self.response_id = string_or_none(response.get("id"))
        self.response_model = string_or_none(response.get("model")) or self.response_model
        usage = _responses_usage(response.get("usage"))
        return (self.turn_end(usage, reason, _INCOMPLETE_REASONS),)

    def created(self, response: Any) -> Sequence[Delta]:
        """``response.created``: its model kept, for a final event that names none."""
        if isinstance(response, dict):
            self.response_model = string_or_none(response.get("model")) or None
        return ()

    def other(self, kind: object, data: dict[str, Any]) -> Sequence[Delta]:
        """``response.web_search_call.searching`` and the like: a hosted tool at work."""
        parts = kind.split(".") if isinstance(kind, str) and "_call." in kind else ()  # most: none
        if len(parts) != 3 or parts[0] != "response" or not parts[1].endswith("_call"):
            return ()
        return (HostedActivity(parts[1], parts[2], string_or_none(data.get("item_id"))),)

    def _final(self, data: dict[str, Any]) -> Sequence[Delta]:
        response = expect(data.get("response"), dict, "the final event carries no response")
        return self.finish(response)

    def _failed(self, data: dict[str, Any]) -> Sequence[Delta]:
        response = data.get("response")
        raise StreamFailedError(_failure(response if isinstance(response, dict) else {}))

    def _error(self, data: dict[str, Any]) -> Sequence[Delta]:
        raise StreamFailedError(describe_error_body(data, str(data.get("message")), ("code",)))

    handlers: ClassVar[Mapping[str, EventHandler]] = {
        "response.created": lambda self, data: self.created(data.get("response")),
        "response.output_text.delta": lambda self, data: (TextPiece(_delta(data)),),
        "response.function_call_arguments.delta": lambda self, data: (
            ToolCallArguments(_index(data), _delta(data)),
        ),
        "response.refusal.delta": lambda self, data: (self.refusal(_delta(data)),),
        "response.output_item.added": lambda self, data: self.added(_index(data), data.get("item")),
        "response.output_item.done": _done,
        "response.completed": _final,
        "response.incomplete": _final,
        "response.failed": _failed,
        "error": _error,
    }


def _failure(response: Mapping[str, Any]) -> str:
    """What a failed response says about its failure."""
    detail = describe_error_body({"error": response.get("error")}, "", ("code",))
    return f"the response failed: {detail}" if detail else "the response failed"


# -- Chat Completions --------------------------------------------------------------------------

_FINISH_REASONS = {"function_call": "tool_calls"}  # the others are the core's words already

_chat_usage = UsageFields(
    input=("prompt_tokens",),
    output=("completion_tokens",),
    cached=("prompt_tokens_details.cached_tokens",),
    reasoning=("completion_tokens_details.reasoning_tokens",),
).read


class ChatReply(StreamTranslator):
    """Translates one Chat Completions answer: call it with each SSE event, or use :meth:`whole`."""

    __slots__ = ("_annotations", "_chosen", "_text", "_usage")

    def __init__(self, *, hosted: bool = False) -> None:
        super().__init__(hosted=hosted)
        self._text: list[str] = []
        self._annotations: Any = []  # a list, unless the provider sent something else
        self._chosen = False
        self._usage: Usage = NO_USAGE

    def whole(self, data: Any) -> list[Delta]:
        """A whole completion: the deltas its one chunk makes."""
        data = expect(data, dict, "expected a JSON object, got {type}")
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise UnusableResponseError("the completion has no choices")
        expect(choices[0].get("message"), dict, "the first choice has no message")
        return [*self.read(data, "message"), *self.finish()]

    def __call__(self, event: SseEvent) -> Sequence[Delta]:
        if event.data == "[DONE]":
            return self.finish()
        chunk = parse_json(event.data)
        if type(chunk) is not dict:  # every event is read here: no call to expect
            raise UnusableResponseError(f"a chunk is {type(chunk).__name__}, not an object")
        error = chunk.get("error")
        if error is not None:
            raise StreamFailedError(describe_error_body({"error": error}, str(error)))
        return self.read(chunk, "delta")

    def read(self, chunk: dict[str, Any], part: str) -> Sequence[Delta]:
        """The deltas of a chunk (``part="delta"``) or of a whole completion (``"message"``)."""
        if self.response_id is None:
            self.response_id = string_or_none(chunk.get("id"))
        if self.response_model is None:
            self.response_model = string_or_none(chunk.get("model")) or None
        if isinstance(chunk.get("usage"), dict):
            self._usage = _chat_usage(chunk["usage"])
        choices = chunk.get("choices")
        if not choices:
            return ()
        choice = choices[0] if type(choices) is list else None
        if type(choice) is not dict:
            raise UnusableResponseError("a chunk's choices are not a list of objects")
        self._chosen = True
        if choice.get("finish_reason"):
            self.reason = choice["finish_reason"]
        delta = choice.get(part)
        return self._deltas(delta, part == "message") if isinstance(delta, dict) else ()

    def _deltas(self, delta: dict[str, Any], whole: bool) -> Sequence[Delta]:
        text = delta.get("content")
        text = text if type(text) is str else _text(text)
        calls = delta.get("tool_calls")
        if not calls and delta.get("refusal") is None and not self.hosted:  # most chunks
            return (TextPiece(text),) if text else ()
        out: list[Delta] = []
        if text:
            out.append(TextPiece(text))
            if self.hosted:
                self._text.append(text)
        annotations = delta.get("annotations")
        if self.hosted and annotations is not None:
            if isinstance(annotations, list) and isinstance(self._annotations, list):
                self._annotations.extend(annotations)
            else:  # passed on as it came, for the codec to skip with its warning
                self._annotations = annotations
        refusal = delta.get("refusal")
        if isinstance(refusal, str) and refusal:
            out.append(self.refusal(refusal))
        calls = expect(calls or [], list, "a chunk's tool calls are not a list")
        for place, fragment in enumerate(calls):
            out.extend(self._call_fragment(fragment, place if whole else None))
        return out

    def _call_fragment(self, fragment: Any, place: int | None) -> list[Delta]:
        fragment = expect(fragment, dict, "a tool call is not an object")
        index = fragment.get("index") if place is None else place
        if not isinstance(index, int):
            raise UnusableResponseError("a tool call fragment lacks its index")
        if fragment.get("type", "function") != "function":
            return []  # custom (grammar) tools are never declared by this adapter
        problem = "a tool call fragment's function is not an object"
        function = expect(fragment.get("function") or {}, dict, problem)
        call_id, name = fragment.get("id"), function.get("name")
        arguments = _arguments(function.get("arguments"))
        lacking = "a tool call's first fragment lacks its id or name"
        return self.call_fragment(index, call_id, name, arguments, lacking=lacking)

    def finish(self) -> list[Delta]:
        """The end of the answer: each call ready, the hosted item, the turn's end."""
        if not self._chosen:
            raise UnusableResponseError("the stream carried no choices")
        out: list[Delta] = [ToolCallReady(index) for index in self.calls]
        if self.hosted:
            item = {"type": "message", "content": "".join(self._text)}
            item["annotations"] = self._annotations
            out.append(ProviderItem(item, echo=False, hosted=True))
        reason = "refusal" if self.refused else self.reason
        out.append(self.turn_end(self._usage, reason, _FINISH_REASONS))
        return out


def _text(content: Any) -> str | None:
    """A message's text: a string, or the ``text`` of content parts (some compatible servers)."""
    if not isinstance(content, list):
        return content if isinstance(content, str) else None
    texts = [p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)]
    return "".join(texts) if texts else None


def _arguments(value: Any) -> str:
    """A call's arguments as received (even invalid JSON); an object becomes its JSON."""
    if isinstance(value, str):
        return value
    return "" if value is None else json.dumps(value)

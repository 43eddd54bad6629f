"""``generateContent`` on the wire: a ``ModelRequest`` to a body, a body (or a stream of chunks)
to a turn.

The body is the REST API's camelCase JSON, handed to the SDK as it is. Every request resends the
whole transcript as ``contents``; a model turn goes back as the parts the model sent
(``provider_items``), unchanged, so each ``functionCall``'s ``id`` and ``thoughtSignature``
return exactly as received.

Function calls may come without an ``id``. The core still needs one per call, so such a call
gets a synthetic id (``<responseId>-<turn>-<index>``), which never goes on the wire: calls and
``functionResponse`` parts are paired by order and name, and a ``functionResponse`` carries an
``id`` only when the model's call did.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from affordance.adapters.decoding import (
    StreamFailedError,
    UnusableResponseError,
    parse_json,
    token_count,
)
from affordance.adapters.encoding import arguments_json, merge_extra_body
from affordance.adapters.sse import SseEvent
from affordance.runtime.deltas import (
    Delta,
    ProviderItem,
    RefusalPiece,
    TextPiece,
    ToolCallBegun,
    ToolCallReady,
    TurnEnd,
)
from affordance.runtime.messages import AssistantMessage, ToolCall, ToolResultMessage, UserMessage
from affordance.runtime.turn import ModelRequest, ProviderTurn, Usage
from affordance_google.serializers import wire_name

if TYPE_CHECKING:
    from affordance.adapters import ProviderAdapter

__all__ = [
    "FILTER_REASONS",
    "PreparedRequest",
    "RequestSettings",
    "StreamTranslation",
    "aended",
    "build_body",
    "ended",
    "parse_body",
    "step",
    "translate",
]

FILTER_REASONS = {
    "SAFETY": "it was flagged for safety",
    "RECITATION": "it recited training data",
    "BLOCKLIST": "it contained blocklisted terms",
    "PROHIBITED_CONTENT": "it contained prohibited content",
    "SPII": "it contained sensitive personal information",
    "IMAGE_SAFETY": "a generated image was flagged for safety",
    "IMAGE_PROHIBITED_CONTENT": "a generated image contained prohibited content",
    "IMAGE_RECITATION": "a generated image recited training data",
}
"""``finishReason`` values that mean the answer was filtered (``content_filter``), and why."""

_FINISH_REASONS = {"STOP": "stop", "MAX_TOKENS": "length"}
_CHOICE_MODES = {"auto": "AUTO", "none": "NONE", "required": "ANY"}
_HOSTED_PARTS = ("executableCode", "codeExecutionResult")
_PART_KEYS = frozenset(
    {
        "text",
        "functionCall",
        "functionResponse",
        "executableCode",
        "codeExecutionResult",
        "inlineData",
        "fileData",
        "thought",
        "thoughtSignature",
        "toolCall",
        "toolResponse",
        "videoMetadata",
    }
)


@dataclass(frozen=True, slots=True)
class RequestSettings:
    """The adapter's Google-only options, as every request sends them."""

    max_output_tokens: int | None = None
    temperature: float | None = None
    extra_body: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class PreparedRequest:
    """A request body, and what reading its answer needs: the tool name each declared function
    name stands for (only where they differ) and the turn number (for synthetic call ids)."""

    body: dict[str, Any]
    names: Mapping[str, str]
    turn: int


# -- the request ------------------------------------------------------------------------------


def build_body(
    adapter: ProviderAdapter,
    request: ModelRequest,
    settings: RequestSettings,
    hosted: Sequence[Mapping[str, Any]] = (),
) -> PreparedRequest:
    declarations = [adapter.declaration(tool).wire for tool in request.tools]
    names = {
        str(wire["name"]): tool.name
        for tool, wire in zip(request.tools, declarations, strict=True)
        if wire.get("name") != tool.name
    }
    declared = {tool: wire for wire, tool in names.items()}
    body: dict[str, Any] = {"contents": _contents(adapter, request.messages, declared)}
    if request.instructions is not None:
        body["systemInstruction"] = {"parts": [{"text": request.instructions}]}
    tools: list[Mapping[str, Any]] = list(hosted)
    if declarations:
        tools.append({"functionDeclarations": declarations})
    if tools:
        body["tools"] = tools
        config = _function_calling_config(request, declared) if declarations else None
        tool_config: dict[str, Any] = {}
        if config is not None:
            tool_config["functionCallingConfig"] = config
        if declarations and hosted:
            tool_config["includeServerSideToolInvocations"] = True
        if tool_config:
            body["toolConfig"] = tool_config
    generation: dict[str, Any] = {}
    if request.output_schema is not None:
        formatted = adapter.output_format(request.output_schema, request.output_name)
        generation.update(formatted.wire)
    if settings.max_output_tokens is not None:
        generation["maxOutputTokens"] = settings.max_output_tokens
    if settings.temperature is not None:
        generation["temperature"] = settings.temperature
    if generation:
        body["generationConfig"] = generation
    merge_extra_body(body, settings.extra_body)
    return PreparedRequest(body, names, request.turn)


def _function_calling_config(
    request: ModelRequest, declared: Mapping[str, str]
) -> Mapping[str, Any] | None:
    """``toolConfig.functionCallingConfig``: a keyword's mode, ``ANY`` limited to one function
    for a tool name, or the caller's mapping as it is. Gemini cannot turn parallel calls off,
    so ``parallel_tool_calls`` has no wire form here."""
    choice = request.tool_choice
    if choice is None:
        return None
    if not isinstance(choice, str):
        return dict(choice)
    mode = _CHOICE_MODES.get(choice)
    if mode is not None:
        return {"mode": mode}
    return {"mode": "ANY", "allowedFunctionNames": [declared.get(choice, wire_name(choice))]}


def _contents(
    adapter: ProviderAdapter, messages: Sequence[Any], declared: Mapping[str, str]
) -> list[dict[str, Any]]:
    contents: list[dict[str, Any]] = []
    pairing: dict[str, tuple[str | None, str]] = {}
    responses: list[dict[str, Any]] = []
    for message in messages:
        if isinstance(message, ToolResultMessage):
            responses.append(_function_response(adapter, message, pairing, declared))
            continue
        if responses:
            contents.append({"role": "user", "parts": responses})
            responses = []
        if isinstance(message, UserMessage):
            contents.append({"role": "user", "parts": [{"text": message.text}]})
        elif isinstance(message, AssistantMessage):
            parts, pairing = _model_parts(message, declared)
            if parts:
                contents.append({"role": "model", "parts": parts})
    if responses:
        contents.append({"role": "user", "parts": responses})
    return contents


def _is_part(item: Mapping[str, Any]) -> bool:
    return "type" not in item and any(key in _PART_KEYS for key in item)


def _model_parts(
    message: AssistantMessage, declared: Mapping[str, str]
) -> tuple[list[Any], dict[str, tuple[str | None, str]]]:
    """The model turn's parts (its own, or built from its text and calls when it was recorded
    elsewhere), and for each call id the ``(wire id or None, wire name)`` its result answers."""
    parts: list[Any] = [item for item in message.provider_items if _is_part(item)]
    calls = [part["functionCall"] for part in parts if isinstance(part.get("functionCall"), dict)]
    if parts and len(calls) == len(message.tool_calls):
        pairing = {
            call.id: (_wire_id(wire), str(wire.get("name", call.name)))
            for call, wire in zip(message.tool_calls, calls, strict=True)
        }
        return parts, pairing
    # Not Gemini's own parts: rebuild the turn; no call id goes on the wire (pair by order).
    parts = [{"text": message.text}] if message.text else []
    pairing = {}
    for call in message.tool_calls:
        name = declared.get(call.name, wire_name(call.name))
        parts.append({"functionCall": {"name": name, "args": arguments_json(call)}})
        pairing[call.id] = (None, name)
    return parts, pairing


def _wire_id(call: Mapping[str, Any]) -> str | None:
    value = call.get("id")
    return value if isinstance(value, str) and value else None


def _function_response(
    adapter: ProviderAdapter,
    message: ToolResultMessage,
    pairing: Mapping[str, tuple[str | None, str]],
    declared: Mapping[str, str],
) -> dict[str, Any]:
    call_id, name = pairing.get(message.call_id, (None, declared.get(message.name, "")))
    response = adapter.tool_result(message)
    if not isinstance(response, Mapping):
        response = {"output": response}
    reply: dict[str, Any] = {"name": name or wire_name(message.name), "response": response}
    if call_id is not None:
        reply = {"id": call_id, **reply}
    return {"functionResponse": reply}


# -- the answer -------------------------------------------------------------------------------


def usage_of(usage: Any) -> Usage:
    """``usageMetadata``: input counts the prompt and the tool-use prompt (cached tokens
    included), output the candidates and the thoughts."""
    if not isinstance(usage, dict):
        return Usage()
    thoughts = token_count(usage, "thoughtsTokenCount")
    return Usage(
        input_tokens=token_count(usage, "promptTokenCount")
        + token_count(usage, "toolUsePromptTokenCount"),
        output_tokens=token_count(usage, "candidatesTokenCount") + thoughts,
        cached_input_tokens=token_count(usage, "cachedContentTokenCount"),
        reasoning_tokens=thoughts,
    )


def _finish(reason: Any, has_calls: bool, message: Any) -> tuple[str, str | None]:
    """The normalized finish reason and, for a filtered answer, the refusal text."""
    reason = str(reason) if reason is not None else "STOP"
    why = FILTER_REASONS.get(reason)
    if why is not None:
        return "content_filter", _refusal(f"Gemini stopped its answer ({reason}): {why}", message)
    if has_calls and reason == "STOP":
        return "tool_calls", None
    return _FINISH_REASONS.get(reason, reason.lower()), None


def _blocked(feedback: Any) -> str | None:
    """The refusal text of a blocked prompt, or None if the prompt was not blocked."""
    if not isinstance(feedback, dict) or not feedback.get("blockReason"):
        return None
    reason = feedback["blockReason"]
    return _refusal(f"Gemini blocked the prompt ({reason})", feedback.get("blockReasonMessage"))


def _refusal(text: str, message: Any) -> str:
    return f"{text}: {message}" if isinstance(message, str) and message else f"{text}."


def _response_id(data: Mapping[str, Any]) -> str | None:
    value = data.get("responseId")
    return value if isinstance(value, str) and value else None


def _candidate(data: Any) -> dict[str, Any] | None:
    if not isinstance(data, dict):
        raise UnusableResponseError(f"expected a JSON object, got {type(data).__name__}")
    candidates = data.get("candidates")
    if candidates is None:
        return None
    if not isinstance(candidates, list) or not all(isinstance(c, dict) for c in candidates):
        raise UnusableResponseError("candidates is not a list of objects")
    return candidates[0] if candidates else None


def _parts(candidate: Mapping[str, Any]) -> list[dict[str, Any]]:
    content = candidate.get("content")
    if content is None:
        return []
    parts = content.get("parts") if isinstance(content, dict) else None
    if parts is None:
        return []
    if not isinstance(parts, list) or not all(isinstance(p, dict) for p in parts):
        raise UnusableResponseError("content.parts is not a list of objects")
    return parts


class _Calls:
    """Reads ``functionCall`` parts into the core's calls: tool names mapped back, synthetic
    ids for calls without one (unique within the turn)."""

    __slots__ = ("names", "prefix", "seen")

    def __init__(self, names: Mapping[str, str], response_id: str | None, turn: int) -> None:
        self.names = names
        self.prefix = f"{response_id or 'gemini'}-{turn}-"
        self.seen: set[str] = set()

    def read(self, part: Mapping[str, Any], index: int) -> ToolCall:
        call = part["functionCall"]
        if not isinstance(call, dict) or not isinstance(call.get("name"), str):
            raise UnusableResponseError("a functionCall part lacks its name")
        call_id = _wire_id(call)
        if call_id is None or call_id in self.seen:
            call_id = f"{self.prefix}{index}"
        self.seen.add(call_id)
        name = call["name"]
        return ToolCall(call_id, self.names.get(name, name), _arguments(call.get("args")))


def _arguments(args: Any) -> str | Mapping[str, Any]:
    """``args`` is an object; anything else goes to the executor as text, which reports it to
    the model as a failed call."""
    if isinstance(args, dict):
        return args
    if args is None:
        return {}
    return args if isinstance(args, str) else repr(args)


def parse_body(data: Any, prepared: PreparedRequest) -> ProviderTurn:
    candidate = _candidate(data)
    usage = usage_of(data.get("usageMetadata"))
    response_id = _response_id(data)
    if candidate is None:
        refusal = _blocked(data.get("promptFeedback"))
        if refusal is None:
            raise UnusableResponseError("the response has no candidate and no block reason")
        return ProviderTurn(
            usage=usage, finish_reason="content_filter", refusal=refusal, response_id=response_id
        )
    parts = _parts(candidate)
    reader = _Calls(prepared.names, response_id, prepared.turn)
    texts: list[str] = []
    calls: list[ToolCall] = []
    hosted: list[Mapping[str, Any]] = []
    for part in parts:
        if "functionCall" in part:
            calls.append(reader.read(part, len(calls)))
        elif isinstance(part.get("text"), str) and not part.get("thought"):
            if part["text"]:
                texts.append(part["text"])
        elif any(key in part for key in _HOSTED_PARTS):
            hosted.append(part)
    if isinstance(candidate.get("groundingMetadata"), dict):
        hosted.append({"groundingMetadata": candidate["groundingMetadata"]})
    reason = candidate.get("finishReason")
    if reason is None:
        raise UnusableResponseError("the candidate has no finishReason")
    finish, refusal = _finish(reason, bool(calls), candidate.get("finishMessage"))
    return ProviderTurn(
        text="".join(texts) if texts else None,
        tool_calls=tuple(calls),
        hosted_items=tuple(hosted),
        provider_items=tuple(parts),
        usage=usage,
        finish_reason=finish,
        refusal=refusal,
        response_id=response_id,
    )


# -- the stream -------------------------------------------------------------------------------


class StreamTranslation:
    """The translation of one ``streamGenerateContent`` stream: call it with each chunk's data
    text, then :meth:`end` once the stream is over.

    Each chunk is a whole ``GenerateContentResponse`` holding the next parts. Text arrives in
    slices; consecutive slices of one part (same ``thought`` flag, the previous one without a
    ``thoughtSignature``, which rides on a part's last slice) are joined again before they
    become a provider item, so the turn's parts equal the plain response's. Function calls
    arrive whole. ``finishReason``, grounding and usage come with the last chunk; a stream
    that ends without a finish reason (or a block reason) is an error, never a short answer.
    """

    __slots__ = (
        "_blocked",
        "_calls",
        "_count",
        "_finish",
        "_grounding",
        "_message",
        "_pending",
        "_response_id",
        "_usage",
        "prepared",
    )

    def __init__(self, prepared: PreparedRequest) -> None:
        self.prepared = prepared
        self._pending: dict[str, Any] | None = None
        self._calls: _Calls | None = None
        self._count = 0
        self._finish: Any = None
        self._message: Any = None
        self._grounding: Any = None
        self._blocked: str | None = None
        self._usage = Usage()
        self._response_id: str | None = None

    def __call__(self, data: str) -> Iterator[Delta]:
        chunk = parse_json(data)
        if isinstance(chunk, dict) and "error" in chunk:
            raise _stream_error(chunk["error"])
        candidate = _candidate(chunk)
        if self._response_id is None:
            self._response_id = _response_id(chunk)
        if "usageMetadata" in chunk:
            self._usage = usage_of(chunk["usageMetadata"])
        if self._blocked is None:
            self._blocked = _blocked(chunk.get("promptFeedback"))
        if candidate is None:
            return
        for part in _parts(candidate):
            yield from self._part(part)
        if candidate.get("finishReason") is not None:
            self._finish = candidate["finishReason"]
            self._message = candidate.get("finishMessage")
        if isinstance(candidate.get("groundingMetadata"), dict):
            self._grounding = candidate["groundingMetadata"]

    def _part(self, part: dict[str, Any]) -> Iterator[Delta]:
        text = part.get("text")
        if isinstance(text, str) and "functionCall" not in part:
            if text and not part.get("thought"):
                yield TextPiece(text)
            pending = self._pending
            if (
                pending is not None
                and bool(pending.get("thought")) == bool(part.get("thought"))
                and "thoughtSignature" not in pending
                and set(part) <= {"text", "thought", "thoughtSignature"}
            ):
                self._pending = {**pending, **part, "text": pending["text"] + text}
            else:
                yield from self._flush()
                self._pending = dict(part)
            return
        yield from self._flush()
        if "functionCall" in part:
            if self._calls is None:
                self._calls = _Calls(self.prepared.names, self._response_id, self.prepared.turn)
            call = self._calls.read(part, self._count)
            yield ProviderItem(part)
            yield ToolCallBegun(self._count, call.id, call.name)
            yield ToolCallReady(self._count, call.arguments)
            self._count += 1
        else:
            yield ProviderItem(part, hosted=any(key in part for key in _HOSTED_PARTS))

    def _flush(self) -> Iterator[Delta]:
        if self._pending is not None:
            yield ProviderItem(self._pending)
            self._pending = None

    def end(self) -> Iterator[Delta]:
        """The deltas that close the turn, once the stream has no more chunks."""
        yield from self._flush()
        if self._finish is None:
            if self._blocked is None or self._count:
                raise UnusableResponseError(
                    "the stream ended without a finish reason; the answer is incomplete"
                )
            yield RefusalPiece(self._blocked)
            yield TurnEnd(self._usage, "content_filter", self._response_id)
            return
        if self._grounding is not None:
            yield ProviderItem({"groundingMetadata": self._grounding}, echo=False, hosted=True)
        finish, refusal = _finish(self._finish, self._count > 0, self._message)
        if refusal is not None:
            yield RefusalPiece(refusal)
        yield TurnEnd(self._usage, finish, self._response_id)


def _stream_error(error: Any) -> StreamFailedError:
    if not isinstance(error, dict):
        return StreamFailedError(str(error))
    code = error.get("code")
    status = code if isinstance(code, int) and not isinstance(code, bool) else None
    kind, message = error.get("status"), error.get("message")
    detail = f"{kind}: {message}" if kind and message else str(message or kind or error)
    return StreamFailedError(detail, status=status)


def translate(events: Iterable[str], translation: StreamTranslation) -> Iterator[Delta]:
    """All the deltas of a stream's data texts, the closing ones included."""
    for data in events:
        yield from translation(data)
    yield from translation.end()


def step(translation: StreamTranslation) -> Callable[[SseEvent | None], Iterable[Delta]]:
    """The per-event translation for ``decode_stream``: an event's data, or (``None``, the end
    of the stream) the closing deltas."""

    def one(event: SseEvent | None) -> Iterable[Delta]:
        return translation.end() if event is None else translation(event.data)

    return one


def ended(events: Iterable[SseEvent]) -> Iterator[SseEvent | None]:
    """``events``, then ``None`` for the end of the stream."""
    yield from events
    yield None


async def aended(events: AsyncGenerator[SseEvent, None]) -> AsyncGenerator[SseEvent | None, None]:
    """The async form of :func:`ended`; closing it closes ``events``."""
    async with contextlib.aclosing(events):
        async for event in events:
            yield event
    yield None

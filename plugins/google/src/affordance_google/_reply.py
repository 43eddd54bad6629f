"""``generateContent`` answers read into the core's turn by one reader, a plain response as a
stream of one chunk (``specs/adapters/google.md``, "Streaming" and "Finish reasons")."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from affordance.adapters import (
    Delta,
    ProviderItem,
    RefusalPiece,
    SseEvent,
    StreamFailedError,
    TextPiece,
    ToolCallBegun,
    ToolCallReady,
    TurnEnd,
    UnusableResponseError,
    Usage,
    UsageFields,
    error_detail,
    expect,
    parse_json,
    string_or_none,
)

if TYPE_CHECKING:
    from affordance_google._request import PreparedRequest

__all__ = ["FILTER_REASONS", "Reading"]

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

_usage_of = UsageFields(
    input=("promptTokenCount", "toolUsePromptTokenCount"),
    output=("candidatesTokenCount", "thoughtsTokenCount"),
    cached=("cachedContentTokenCount",),
    reasoning=("thoughtsTokenCount",),
).read


def _finish_of(reason: Any, has_calls: bool, message: Any) -> tuple[str, str | None]:
    """The normalized finish reason and, for a filtered answer, the refusal text."""
    reason = str(reason)
    why = FILTER_REASONS.get(reason)
    if why is not None:
        return "content_filter", _refusal(f"Gemini stopped its answer ({reason}): {why}", message)
    if has_calls and reason == "STOP":
        return "tool_calls", None
    return _FINISH_REASONS.get(reason, reason.lower()), None


def _blocked_prompt(feedback: Any) -> str | None:
    """The refusal text of a blocked prompt, or None if the prompt was not blocked."""
    if not isinstance(feedback, dict) or not feedback.get("blockReason"):
        return None
    reason = feedback["blockReason"]
    return _refusal(f"Gemini blocked the prompt ({reason})", feedback.get("blockReasonMessage"))


def _refusal(text: str, message: Any) -> str:
    return f"{text}: {message}" if isinstance(message, str) and message else f"{text}."


def _arguments(args: Any) -> str | Mapping[str, Any]:
    """``args`` as the executor takes it: an object, else text it reports as a failed call."""
    if args is None or isinstance(args, dict):
        return args or {}
    return args if isinstance(args, str) else repr(args)


@dataclass(slots=True)
class Reading:
    """One answer's reading: called with each stream event, then :meth:`end`; or :meth:`whole`
    with a whole response. Streamed text slices are joined back into their parts."""

    prepared: PreparedRequest
    _whole: bool = field(default=False, init=False)  # one response: parts kept as they are
    _pending: dict[str, Any] | None = field(default=None, init=False)
    _parts: list[dict[str, Any]] = field(default_factory=list, init=False)
    _prefix: str | None = field(default=None, init=False)
    _ids: set[str] = field(default_factory=set, init=False)
    _candidate: bool = field(default=False, init=False)
    _count: int = field(default=0, init=False)
    _final: dict[str, Any] | None = field(default=None, init=False)  # has the finishReason
    _grounding: Any = field(default=None, init=False)
    _blocked: str | None = field(default=None, init=False)
    _usage: Usage = field(default=Usage(), init=False)
    _response_id: str | None = field(default=None, init=False)
    _response_model: str | None = field(default=None, init=False)

    def whole(self, data: Any) -> tuple[Delta, ...]:
        """The deltas of a whole response: a stream of that one chunk."""
        self._whole = True
        return (*self.chunk(data), *self.end())

    def __call__(self, event: SseEvent) -> Iterator[Delta]:
        """The deltas of a stream's event (the stream's translator); an error event raises."""
        chunk = parse_json(event.data)
        if isinstance(chunk, dict) and "error" in chunk:
            error = chunk["error"]
            fields = error if isinstance(error, dict) else {}
            code = fields.get("code")
            status = code if isinstance(code, int) and not isinstance(code, bool) else None
            detail = error_detail(fields.get("status"), fields.get("message"), error)
            raise StreamFailedError(detail, status=status)
        yield from self.chunk(chunk)

    def chunk(self, chunk: Any) -> Iterator[Delta]:
        """The deltas of one response (a stream's chunk, or the whole answer)."""
        if self._final is not None:
            raise UnusableResponseError("a chunk arrived after the chunk carrying finishReason")
        chunk = expect(chunk, dict, "expected a JSON object, got {type}")
        candidates = expect(chunk.get("candidates") or [], list, "candidates is {type}")
        if self._response_id is None:
            self._response_id = string_or_none(chunk.get("responseId")) or None
        if self._response_model is None:
            self._response_model = string_or_none(chunk.get("modelVersion")) or None
        if "usageMetadata" in chunk:
            self._usage = _usage_of(chunk["usageMetadata"])
        if self._blocked is None:
            self._blocked = _blocked_prompt(chunk.get("promptFeedback"))
        if not candidates:
            return
        candidate = expect(candidates[0], dict, "a candidate is {type}, not an object")
        self._candidate = True
        content = candidate.get("content")
        parts = content.get("parts") if isinstance(content, dict) else None
        for part in expect(parts or [], list, "content.parts is {type}"):
            yield from self._part(expect(part, dict, "a part is {type}, not an object"))
        if candidate.get("finishReason") is not None:
            self._final = candidate
        if isinstance(candidate.get("groundingMetadata"), dict):
            self._grounding = candidate["groundingMetadata"]

    def _part(self, part: dict[str, Any]) -> Iterator[Delta]:
        text = part.get("text")
        is_text = isinstance(text, str) and "functionCall" not in part
        if is_text and text and not part.get("thought"):
            yield TextPiece(text)
        if is_text and not self._whole:  # a streamed slice: joined to its part's slices
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
                self._pending = part  # never changed: joining slices makes a new part
            return
        yield from self._flush()  # any other part, and every part of a whole answer, as it came
        self._parts.append(part)
        call = self._call(part["functionCall"]) if "functionCall" in part else ()
        yield ProviderItem(part)
        yield from call

    def _call(self, call: Any) -> tuple[Delta, ...]:
        """A ``functionCall``: its tool's name, a synthetic id for a missing or repeated one."""
        if not isinstance(call, dict) or not isinstance(call.get("name"), str):
            raise UnusableResponseError("a functionCall part lacks its name")
        if self._prefix is None:
            self._prefix = f"{self._response_id or 'gemini'}-{self.prepared.turn}-"
        call_id = string_or_none(call.get("id")) or None
        if call_id is None or call_id in self._ids:
            call_id = f"{self._prefix}{self._count}"
        self._ids.add(call_id)
        name = self.prepared.names.get(call["name"], call["name"])
        index, self._count = self._count, self._count + 1
        arguments = _arguments(call.get("args"))
        return ToolCallBegun(index, call_id, name), ToolCallReady(index, arguments)

    def _flush(self) -> tuple[Delta, ...]:
        """The part joined so far, now complete: kept, and handed over."""
        pending = self._pending
        if pending is None:
            return ()
        self._parts.append(pending)
        self._pending = None
        return (ProviderItem(pending),)

    def end(self) -> Iterator[Delta]:
        """The deltas that close the turn, once the answer has no more chunks."""
        yield from self._flush()
        final = self._final
        if final is not None:
            if self.prepared.hosted:  # the codecs' item: the candidate's parts and grounding
                parts = [dict(part) for part in self._parts]
                candidate = {"content": {"role": "model", "parts": parts}}
                if self._grounding is not None:
                    candidate["groundingMetadata"] = self._grounding
                yield ProviderItem(candidate, echo=False, hosted=True)
            reason, message = final["finishReason"], final.get("finishMessage")
            finish, refusal = _finish_of(reason, self._count > 0, message)
        else:  # a blocked prompt, or an answer cut short
            problem = self._unfinished()
            if problem is not None:
                raise UnusableResponseError(problem)
            finish, refusal = "content_filter", str(self._blocked)
        if refusal is not None:
            yield RefusalPiece(refusal)
        yield TurnEnd(self._usage, finish, self._response_id, response_model=self._response_model)

    def _unfinished(self) -> str | None:
        """What is wrong with an answer without a finish reason; None for a blocked prompt."""
        if self._whole and self._candidate:
            return "the candidate has no finishReason"
        if self._whole and self._blocked is None:
            return "the response has no candidate and no block reason"
        if not self._whole and (self._blocked is None or self._count):
            return "the stream ended without a finish reason; the answer is incomplete"
        return None

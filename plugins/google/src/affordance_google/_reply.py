"""``generateContent`` answers: a response body to the core's turn.

Function calls may come without an ``id``. The core still needs one per call, so such a call
gets a synthetic id (``<responseId>-<turn>-<index>``), which never goes on the wire. When hosted
tools were declared, their codecs read one item, :func:`hosted_candidate`: the candidate's parts
(text, ``executableCode``, ``codeExecutionResult``...) and its ``groundingMetadata``, built the
same way from a plain response and from a stream.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from affordance.adapters import ProviderTurn, ToolCall, UnusableResponseError, UsageFields

if TYPE_CHECKING:
    from affordance_google._request import PreparedRequest

__all__ = [
    "FILTER_REASONS",
    "Calls",
    "blocked",
    "candidate_of",
    "finish_of",
    "hosted_candidate",
    "parse_body",
    "parts_of",
    "response_id_of",
    "usage_of",
    "wire_id",
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


def hosted_candidate(parts: Sequence[Mapping[str, Any]], grounding: Any) -> dict[str, Any]:
    """What Gemini's hosted-tool codecs read: the candidate's parts, in order, and its
    grounding metadata when it has any."""
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": [dict(p) for p in parts]}}
    if isinstance(grounding, dict):
        candidate["groundingMetadata"] = grounding
    return candidate


def wire_id(call: Mapping[str, Any]) -> str | None:
    value = call.get("id")
    return value if isinstance(value, str) and value else None


usage_of = UsageFields(
    input=("promptTokenCount", "toolUsePromptTokenCount"),
    output=("candidatesTokenCount", "thoughtsTokenCount"),
    cached=("cachedContentTokenCount",),
    reasoning=("thoughtsTokenCount",),
).read
"""``usageMetadata``: input counts the prompt and the tool-use prompt (cached tokens
included), output the candidates and the thoughts."""


def finish_of(reason: Any, has_calls: bool, message: Any) -> tuple[str, str | None]:
    """The normalized finish reason and, for a filtered answer, the refusal text."""
    reason = str(reason) if reason is not None else "STOP"
    why = FILTER_REASONS.get(reason)
    if why is not None:
        return "content_filter", _refusal(f"Gemini stopped its answer ({reason}): {why}", message)
    if has_calls and reason == "STOP":
        return "tool_calls", None
    return _FINISH_REASONS.get(reason, reason.lower()), None


def blocked(feedback: Any) -> str | None:
    """The refusal text of a blocked prompt, or None if the prompt was not blocked."""
    if not isinstance(feedback, dict) or not feedback.get("blockReason"):
        return None
    reason = feedback["blockReason"]
    return _refusal(f"Gemini blocked the prompt ({reason})", feedback.get("blockReasonMessage"))


def _refusal(text: str, message: Any) -> str:
    return f"{text}: {message}" if isinstance(message, str) and message else f"{text}."


def response_id_of(data: Mapping[str, Any]) -> str | None:
    value = data.get("responseId")
    return value if isinstance(value, str) and value else None


def candidate_of(data: Any) -> dict[str, Any] | None:
    if not isinstance(data, dict):
        raise UnusableResponseError(f"expected a JSON object, got {type(data).__name__}")
    candidates = data.get("candidates")
    if candidates is None:
        return None
    if not isinstance(candidates, list) or not all(isinstance(c, dict) for c in candidates):
        raise UnusableResponseError("candidates is not a list of objects")
    return candidates[0] if candidates else None


def parts_of(candidate: Mapping[str, Any]) -> list[dict[str, Any]]:
    content = candidate.get("content")
    if content is None:
        return []
    parts = content.get("parts") if isinstance(content, dict) else None
    if parts is None:
        return []
    if not isinstance(parts, list) or not all(isinstance(p, dict) for p in parts):
        raise UnusableResponseError("content.parts is not a list of objects")
    return parts


class Calls:
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
        call_id = wire_id(call)
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
    candidate = candidate_of(data)
    usage = usage_of(data.get("usageMetadata"))
    response_id = response_id_of(data)
    if candidate is None:
        refusal = blocked(data.get("promptFeedback"))
        if refusal is None:
            raise UnusableResponseError("the response has no candidate and no block reason")
        return ProviderTurn(
            usage=usage, finish_reason="content_filter", refusal=refusal, response_id=response_id
        )
    parts = parts_of(candidate)
    reader = Calls(prepared.names, response_id, prepared.turn)
    texts: list[str] = []
    calls: list[ToolCall] = []
    for part in parts:
        if "functionCall" in part:
            calls.append(reader.read(part, len(calls)))
        elif isinstance(part.get("text"), str) and part["text"] and not part.get("thought"):
            texts.append(part["text"])
    grounding = candidate.get("groundingMetadata")
    hosted = (hosted_candidate(parts, grounding),) if prepared.hosted else ()
    reason = candidate.get("finishReason")
    if reason is None:
        raise UnusableResponseError("the candidate has no finishReason")
    finish, refusal = finish_of(reason, bool(calls), candidate.get("finishMessage"))
    return ProviderTurn(
        text="".join(texts) if texts else None,
        tool_calls=tuple(calls),
        hosted_items=hosted,
        provider_items=tuple(parts),
        usage=usage,
        finish_reason=finish,
        refusal=refusal,
        response_id=response_id,
    )

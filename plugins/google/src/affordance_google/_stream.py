"""``streamGenerateContent``: each chunk of a stream as the core's deltas."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

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
    parse_json,
)
from affordance_google._reply import (
    Calls,
    blocked,
    candidate_of,
    finish_of,
    hosted_candidate,
    parts_of,
    response_id_of,
    usage_of,
)
from affordance_google._request import PreparedRequest

__all__ = ["StreamTranslation"]


class StreamTranslation:
    """The translation of one ``streamGenerateContent`` stream: call it with each event, then
    :meth:`end` once the stream is over.

    Each chunk is a whole ``GenerateContentResponse`` holding the next parts. Text arrives in
    slices; consecutive slices of one part (same ``thought`` flag, the previous one without a
    ``thoughtSignature``, which rides on a part's last slice) are joined again before they
    become a provider item, so the turn's parts equal the plain response's. Function calls
    arrive whole. ``finishReason``, grounding and usage come with the last chunk: a chunk after
    it cannot be placed in the turn and is an error, and so is a stream that ends without a
    finish reason (or a block reason), never a short answer.
    """

    __slots__ = (
        "_blocked",
        "_calls",
        "_count",
        "_finish",
        "_grounding",
        "_message",
        "_parts",
        "_pending",
        "_response_id",
        "_usage",
        "prepared",
    )

    def __init__(self, prepared: PreparedRequest) -> None:
        self.prepared = prepared
        self._pending: dict[str, Any] | None = None
        self._parts: list[dict[str, Any]] = []
        self._calls: Calls | None = None
        self._count = 0
        self._finish: Any = None
        self._message: Any = None
        self._grounding: Any = None
        self._blocked: str | None = None
        self._usage = Usage()
        self._response_id: str | None = None

    def __call__(self, event: SseEvent) -> Iterator[Delta]:
        chunk = parse_json(event.data)
        if isinstance(chunk, dict) and "error" in chunk:
            raise _stream_error(chunk["error"])
        if self._finish is not None:
            raise UnusableResponseError("a chunk arrived after the chunk carrying finishReason")
        candidate = candidate_of(chunk)
        if self._response_id is None:
            self._response_id = response_id_of(chunk)
        if "usageMetadata" in chunk:
            self._usage = usage_of(chunk["usageMetadata"])
        if self._blocked is None:
            self._blocked = blocked(chunk.get("promptFeedback"))
        if candidate is None:
            return
        for part in parts_of(candidate):
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
        self._parts.append(part)
        if "functionCall" in part:
            if self._calls is None:
                self._calls = Calls(self.prepared.names, self._response_id, self.prepared.turn)
            call = self._calls.read(part, self._count)
            yield ProviderItem(part)
            yield ToolCallBegun(self._count, call.id, call.name)
            yield ToolCallReady(self._count, call.arguments)
            self._count += 1
        else:
            yield ProviderItem(part)

    def _flush(self) -> Iterator[Delta]:
        if self._pending is not None:
            self._parts.append(self._pending)
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
        if self.prepared.hosted:
            candidate = hosted_candidate(self._parts, self._grounding)
            yield ProviderItem(candidate, echo=False, hosted=True)
        finish, refusal = finish_of(self._finish, self._count > 0, self._message)
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

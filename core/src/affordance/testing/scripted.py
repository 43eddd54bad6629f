"""``ScriptedAdapter``: an offline, deterministic provider for tests and demos.

It answers each request with the next step of a script (or from a responder function), records
every request it saw, and can check that the script was used up.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping
from typing import Any

from affordance.adapters import (
    AttachmentSupport,
    Delta,
    ModelRequest,
    ProviderAdapter,
    ProviderModel,
    ProviderTurn,
    ToolCall,
    Usage,
)
from affordance.attachments import DOCUMENT_MEDIA_TYPES, IMAGE_MEDIA_TYPES
from affordance.runtime import ToolExecutor
from affordance.runtime.model import deltas_of
from affordance.tools import HostedToolCodec

__all__ = [
    "Responder",
    "ScriptedAdapter",
    "ScriptedModel",
    "Step",
    "text",
    "tool_call",
    "tool_calls",
]

Responder = Callable[[ModelRequest], ProviderTurn]
Step = ProviderTurn | BaseException | Responder

_ids = itertools.count(1)


def tool_call(
    name: str, arguments: Mapping[str, Any] | str | None = None, *, call_id: str | None = None
) -> ToolCall:
    """A call as a provider would send it; a mapping is sent as a JSON string (as OpenAI does)."""
    raw = arguments if isinstance(arguments, str) else json.dumps(dict(arguments or {}))
    return ToolCall(call_id or f"call_{next(_ids)}", name, raw)


def tool_calls(
    *calls: ToolCall, text: str | None = None, usage: Usage | None = None
) -> ProviderTurn:
    """A turn in which the model calls tools (several calls are parallel calls)."""
    return ProviderTurn(
        text=text, tool_calls=calls, usage=usage or Usage(10, 5), finish_reason="tool_calls"
    )


def text(content: str, *, usage: Usage | None = None, **fields: Any) -> ProviderTurn:
    """A final answer."""
    return ProviderTurn(text=content, usage=usage or Usage(10, 5), **fields)


class ScriptedModel(ProviderModel):
    """The model of a :class:`ScriptedAdapter`: answers from the script, keeps the requests."""

    name = "scripted"
    attachment_support = AttachmentSupport(
        user=IMAGE_MEDIA_TYPES | DOCUMENT_MEDIA_TYPES,
        tool_result=IMAGE_MEDIA_TYPES | DOCUMENT_MEDIA_TYPES,
        by_url=frozenset({"image", "document"}),
    )
    """A script carries every attachment, anywhere (what its requests record is checked)."""

    def __init__(
        self,
        steps: Iterable[Step] = (),
        *,
        responder: Responder | None = None,
        codecs: Mapping[str, HostedToolCodec[Any, Any]] | None = None,
        codecs_of: str | None = None,
        stream_chunk: int = 8,
        record: bool = True,
    ) -> None:
        super().__init__()
        self.resolve_through(codecs=codecs)
        if stream_chunk < 0:
            raise ValueError(f"stream_chunk must be 0 (whole) or positive, got {stream_chunk}")
        self.stream_chunk = stream_chunk
        self._record = record
        self._steps: deque[Step] = deque(steps)
        self._responder = responder
        self._codecs_of = codecs_of
        self._lock = threading.Lock()
        self.requests: list[ModelRequest] = []
        self.sent = 0

    def add(self, *steps: Step) -> None:
        with self._lock:
            self._steps.extend(steps)

    def send(self, request: ModelRequest) -> ProviderTurn:
        with self._lock:
            self.sent += 1
            if self._record:
                self.requests.append(request)
            step: Step | None = self._steps.popleft() if self._steps else self._responder
        if step is None:
            raise AssertionError(
                f"ScriptedAdapter has no step left for request {self.sent} "
                f"(turn {request.turn} of {request.prompt_name!r})"
            )
        if isinstance(step, BaseException):
            raise step
        if isinstance(step, ProviderTurn):
            return step
        return step(request)

    async def asend(self, request: ModelRequest) -> ProviderTurn:
        return self.send(request)

    def send_stream(self, request: ModelRequest) -> Iterator[Delta]:
        yield from deltas_of(self.send(request), chunk=self.stream_chunk)

    async def asend_stream(self, request: ModelRequest) -> AsyncIterator[Delta]:
        for delta in deltas_of(self.send(request), chunk=self.stream_chunk):
            yield delta

    def hosted_codec(self, kind: str) -> HostedToolCodec[Any, Any] | None:
        codec = self._given_codecs.get(kind)
        if codec is None and self._codecs_of is not None:
            registry = self.resolution().registry
            codec = None if registry is None else registry.codec(self._codecs_of, kind)
        return codec

    def hosted_output_type(self, kind: str) -> type[Any] | None:
        """With ``codecs_of``, the output type the installed plugins register for ``kind``, as
        a provider adapter checks it; without, none: the registry is not consulted (offline
        tests of a kind no plugin registers hand their codecs over in ``codecs=``)."""
        if self._codecs_of is None:
            return None
        registry = self.resolution().registry
        found = None if registry is None else registry.hosted_tool_output(kind)
        return None if found is None else found[0]

    @property
    def remaining(self) -> int:
        return len(self._steps)


class ScriptedAdapter(ProviderAdapter[ScriptedModel]):
    """Replays ``steps`` in order: turns are returned, exceptions raised, callables called.

    ``responder`` answers when the script is empty (useful when many runs share one adapter).
    Every request is kept in :attr:`requests`; ``record=False`` keeps none (a long-lived
    adapter, e.g. an app's offline model, must not grow without bound).
    Streamed (``stream``/``astream``), each answer arrives in pieces of ``stream_chunk``
    characters, so offline tests and demos show streaming as a provider would.
    Hosted tools are testable offline: ``codecs`` maps kinds to codecs, and ``codecs_of="openai"``
    uses the codecs the installed plugins register for that provider, so provider-shaped items
    in ``ProviderTurn.hosted_items`` go through the real codecs (and their outputs are checked
    against the types the plugins register, as a provider adapter checks them). The script is
    the adapter's model (:class:`ScriptedModel`, its ``connection``).
    """

    def __init__(
        self,
        steps: Iterable[Step] = (),
        *,
        responder: Responder | None = None,
        codecs: Mapping[str, HostedToolCodec[Any, Any]] | None = None,
        codecs_of: str | None = None,
        executor: ToolExecutor | None = None,
        stream_chunk: int = 8,
        record: bool = True,
        **options: Any,
    ) -> None:
        model = ScriptedModel(
            steps,
            responder=responder,
            codecs=codecs,
            codecs_of=codecs_of,
            stream_chunk=stream_chunk,
            record=record,
        )
        super().__init__(model, executor=executor, **options)

    @property
    def requests(self) -> list[ModelRequest]:
        """Every request the model was sent (none with ``record=False``)."""
        return self.connection.requests

    @property
    def sent(self) -> int:
        """How many requests the model was sent."""
        return self.connection.sent

    @property
    def stream_chunk(self) -> int:
        return self.connection.stream_chunk

    @property
    def remaining(self) -> int:
        """How many scripted steps are left."""
        return self.connection.remaining

    def add(self, *steps: Step) -> None:
        """Append ``steps`` to the script."""
        self.connection.add(*steps)

    def assert_complete(self) -> None:
        """Fail if scripted steps were never used."""
        if self.connection.remaining:
            raise AssertionError(f"ScriptedAdapter has {self.connection.remaining} unused step(s)")

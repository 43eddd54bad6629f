"""``WireModel`` (``affordance.adapters.wire``): a plugin's three wire-format methods and a
transport make a whole model — the four sends, the preview and closing — held by a
``ProviderAdapter``, here with a transport that records what it is handed. The shipped plugins
run it over real HTTP."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest

from affordance import MarkdownSection, PromptTemplate
from affordance.adapters import (
    ClientPair,
    Delta,
    ModelRequest,
    PreparedRequest,
    ProviderAdapter,
    ProviderTurn,
    RequestSettings,
    SseEvent,
    TextPiece,
    Translate,
    TurnEnd,
    Usage,
    UserMessage,
    WireModel,
    adecode_stream,
    check_model,
    decode_stream,
)


class SyncClient:
    def __init__(self) -> None:
        self.closed = False

    def close(self) -> None:
        self.closed = True


class AsyncClient:
    def __init__(self) -> None:
        self.closed = False

    async def close(self) -> None:
        self.closed = True


class RecordingTransport:
    """Answers each send from what it is handed: ``parse`` gets ``{"said": <body text>}``; a
    stream is two events for the translator."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []
        self.requests: list[ModelRequest] = []

    def send(
        self, body: Any, request: ModelRequest, parse: Callable[[Any], ProviderTurn]
    ) -> ProviderTurn:
        self.sent.append(("send", body))
        self.requests.append(request)
        return parse({"said": body["text"]})

    async def asend(
        self, body: Any, request: ModelRequest, parse: Callable[[Any], ProviderTurn]
    ) -> ProviderTurn:
        self.sent.append(("asend", body))
        return parse({"said": body["text"]})

    def send_stream(
        self, body: Any, request: ModelRequest, translate: Translate
    ) -> Iterator[Delta]:
        self.sent.append(("send_stream", body))
        events = [SseEvent(None, "one "), SseEvent(None, "two")]
        return decode_stream(events, translate, provider="echo", prompt_name=request.prompt_name)

    def asend_stream(
        self, body: Any, request: ModelRequest, translate: Translate
    ) -> AsyncIterator[Delta]:
        self.sent.append(("asend_stream", body))

        async def events() -> AsyncIterator[SseEvent]:
            for data in ("one ", "two"):
                yield SseEvent(None, data)

        return adecode_stream(events(), translate, provider="echo", prompt_name=request.prompt_name)


class Translation:
    """Text pieces per event; the turn ends when the events run out (``end``, which
    ``decode_stream`` calls)."""

    def __call__(self, event: SseEvent) -> list[Delta]:
        return [TextPiece(event.data)]

    def end(self) -> list[Delta]:
        return [TurnEnd(Usage(1, 2), "stop", "r1")]


class EchoModel(WireModel[PreparedRequest]):
    name = "echo"

    def prepare(self, request: ModelRequest, *, stream: bool = False) -> PreparedRequest:
        (opening,) = request.messages
        assert isinstance(opening, UserMessage)
        body: dict[str, Any] = {"model": self.settings.model, "text": opening.text}
        if stream:
            body["stream"] = True
        return PreparedRequest(body)

    def parse(self, data: Any, prepared: PreparedRequest) -> ProviderTurn:
        return ProviderTurn(text=f"heard: {data['said']}", response_id="r0")

    def translator(self, prepared: PreparedRequest) -> Translate:
        return Translation()


class EchoAdapter(ProviderAdapter[EchoModel]):
    """The user's object: builds its model from its own options, runs the loop."""

    def __init__(self, *, client: object = None, close_clients: bool = False) -> None:
        clients = ClientPair.of(
            client,
            None,
            provider=self.name,
            sync_type=SyncClient,
            async_type=AsyncClient,
            close_clients=close_clients,
        )
        settings = RequestSettings(check_model("echo-1"))
        super().__init__(EchoModel(settings, clients, RecordingTransport()))


def prompt() -> PromptTemplate[Any]:
    return PromptTemplate(
        ns="tests", key="echo", sections=[MarkdownSection(title="Task", template="Say it.")]
    )


def test_the_plain_sends_post_the_prepared_body_and_parse_the_answer() -> None:
    adapter = EchoAdapter()

    answer = adapter.evaluate(prompt())
    again = asyncio.run(adapter.aevaluate(prompt()))

    body = {"model": "echo-1", "text": "## 1 Task\nSay it."}
    assert adapter.connection.transport.sent == [("send", body), ("asend", body)]  # type: ignore[attr-defined]
    assert answer.text == again.text == "heard: ## 1 Task\nSay it."


def test_the_streamed_sends_ask_for_a_stream_and_translate_each_event() -> None:
    adapter = EchoAdapter()

    with adapter.stream(prompt()) as events:
        list(events)

    async def astream() -> Any:
        async with adapter.astream(prompt()) as stream:
            async for _ in stream:
                pass
        return stream.response

    streamed = asyncio.run(astream())
    body = {"model": "echo-1", "text": "## 1 Task\nSay it.", "stream": True}
    assert adapter.connection.transport.sent == [("send_stream", body), ("asend_stream", body)]  # type: ignore[attr-defined]
    assert events.response is not None
    assert events.response.text == streamed.text == "one two"  # the translator's end() ran


def test_the_preview_is_the_plain_body_and_sends_nothing() -> None:
    adapter = EchoAdapter()
    adapter.evaluate(prompt())
    transport = adapter.connection.transport
    assert isinstance(transport, RecordingTransport)

    preview = adapter.wire_request(transport.requests[0])

    assert [preview] == [body for _, body in transport.sent]


def test_close_closes_only_clients_the_adapter_owns() -> None:
    given, handed_over = SyncClient(), SyncClient()

    EchoAdapter(client=given).close()
    EchoAdapter(client=handed_over, close_clients=True).close()

    assert (given.closed, handed_over.closed) == (False, True)


def test_clients_from_the_environment_are_built_from_their_class_and_closed_by_close() -> None:
    adapter = EchoAdapter()
    sync, async_ = (
        adapter.connection.clients.sync_client(),
        adapter.connection.clients.async_client(),
    )

    adapter.close()
    asyncio.run(adapter.aclose())

    assert (type(sync), type(async_)) == (SyncClient, AsyncClient)
    assert (sync.closed, async_.closed) == (True, True)


def test_an_empty_model_is_refused() -> None:
    with pytest.raises(ValueError, match="model must be a non-empty string, got ''"):
        check_model("")


@pytest.mark.parametrize("limit", [0, -3, True])
def test_request_settings_refuse_a_cap_that_is_not_a_positive_integer(limit: Any) -> None:
    with pytest.raises(
        ValueError, match=f"max_output_tokens must be a positive integer, got {limit!r}"
    ):
        RequestSettings.of("m", limit, limit="max_output_tokens")


def test_request_settings_keep_the_options_and_copy_the_extra_body() -> None:
    extra = {"a": 1}

    settings = RequestSettings.of("m", 5, 0.2, extra)
    extra["a"] = 2

    assert settings == RequestSettings("m", 5, 0.2, {"a": 1})
    assert RequestSettings.of("m").max_tokens is None
    with pytest.raises(ValueError, match="model must be a non-empty string"):
        RequestSettings.of("")


class AcloseClient:
    def __init__(self) -> None:
        self.closed_by = ""

    async def aclose(self) -> None:
        self.closed_by = "aclose"

    async def close(self) -> None:
        self.closed_by = "close"


def test_client_pair_of_closes_an_async_client_with_its_aclose_when_it_has_one() -> None:
    with_aclose, with_close = AcloseClient(), AsyncClient()
    for client in (with_aclose, with_close):
        pair = ClientPair.of(
            None,
            client,
            provider="echo",
            sync_type=SyncClient,
            async_type=type(client),
            close_clients=True,
        )
        asyncio.run(pair.aclose())

    assert (with_aclose.closed_by, with_close.closed) == ("aclose", True)


class WholeTranslation(Translation):
    """A translator that reads a whole answer too: the deltas a stream of it would bring."""

    def whole(self, data: Any) -> list[Delta]:
        return [TextPiece(f"whole: {data['said']}"), *self.end()]


class WholeModel(WireModel[PreparedRequest]):
    """A wire format without a ``parse`` of its own: its translator reads whole answers."""

    def translator(self, prepared: PreparedRequest) -> Translate:
        return WholeTranslation() if prepared.hosted else Translation()


def test_a_whole_answer_is_read_by_a_fresh_translators_whole_by_default() -> None:
    clients: ClientPair[Any, Any] = ClientPair.of(
        None, None, provider="echo", sync_type=SyncClient, async_type=AsyncClient
    )
    model = WholeModel(RequestSettings("echo-1"), clients, RecordingTransport())

    turn = model.parse({"said": "Hi."}, PreparedRequest({}, hosted=True))

    assert (turn.text, turn.usage, turn.response_id) == ("whole: Hi.", Usage(1, 2), "r1")
    with pytest.raises(NotImplementedError, match="WholeModel's translator has no whole"):
        model.parse({"said": "Hi."}, PreparedRequest({}))

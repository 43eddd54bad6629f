"""``RetryingTransport`` (``affordance.adapters.retrying``): the core's retry budget around a
plugin's one attempt, the answer read whole or as events, the response closed. Here with an
``Exchange`` scripted in memory; the Google plugin's tests run it over real HTTP."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from affordance import MarkdownSection, PromptEvaluationError, PromptTemplate
from affordance.adapters import (
    ClientPair,
    Delta,
    ModelRequest,
    PreparedRequest,
    ProviderAdapter,
    ProviderTurn,
    RequestRetryPolicy,
    RequestSettings,
    RetryingTransport,
    SseEvent,
    TextPiece,
    Transient,
    Translate,
    TurnEnd,
    Usage,
    WireModel,
    parse_json,
)
from affordance.testing import FakeClock


class FlakyError(Exception):
    """What the scripted SDK raises: transient unless ``final``."""

    def __init__(self, final: bool = False) -> None:
        super().__init__("final" if final else "flaky")
        self.final = final


@dataclass
class Answer:
    body: str
    headers: dict[str, str]
    raw: httpx.Response | None = None


class ScriptedExchange:
    """Each attempt takes the next entry: an exception to raise, or an answer."""

    def __init__(self, *entries: Any) -> None:
        self.entries = list(entries)
        self.attempts: list[tuple[bool, dict[str, Any]]] = []

    def attempt(
        self, client: Any, body: Any, request: ModelRequest, *, stream: bool
    ) -> Callable[[], Any]:
        asynchronous = isinstance(client, AsyncSdk)

        def once() -> Any:
            self.attempts.append((stream, body))
            entry = self.entries.pop(0)
            if isinstance(entry, Exception):
                raise entry
            return entry

        async def aonce() -> Any:
            return once()

        return aonce if asynchronous else once

    def content(self, answer: Answer) -> bytes:
        return answer.body.encode()

    def headers(self, answer: Answer) -> Any:
        return answer.headers

    def raw_response(self, answer: Answer) -> Any:
        return answer.raw


class Sdk:
    def close(self) -> None:
        pass


class AsyncSdk:
    async def close(self) -> None:
        pass


def classify(error: Exception) -> Transient | None:
    return None if getattr(error, "final", True) else Transient("flaky")


def give_up(error: Exception, attempts: int, *, prompt_name: str) -> PromptEvaluationError:
    return PromptEvaluationError(f"gave up after {attempts}: {error}", prompt_name=prompt_name)


class Translation:
    def __call__(self, event: SseEvent) -> Iterator[Delta]:
        data = parse_json(event.data)
        if data.get("done"):
            yield TurnEnd(Usage(), "stop", None)
        else:
            yield TextPiece(data["text"])


class ScriptedModel(WireModel[PreparedRequest]):
    name = "scripted"

    def prepare(self, request: ModelRequest, *, stream: bool = False) -> PreparedRequest:
        return PreparedRequest({"turn": request.turn})

    def parse(self, data: Any, prepared: PreparedRequest) -> ProviderTurn:
        return ProviderTurn(text=data["text"])

    def translator(self, prepared: PreparedRequest) -> Translate:
        return Translation()


class ScriptedAdapter(ProviderAdapter[ScriptedModel]):
    def __init__(self, exchange: ScriptedExchange, clock: FakeClock) -> None:
        clients = ClientPair.of(None, None, provider="scripted", sync_type=Sdk, async_type=AsyncSdk)
        transport = RetryingTransport(
            exchange,
            clients,
            provider="scripted",
            classify=classify,
            give_up=give_up,
            policy=RequestRetryPolicy(max_retries=2),
            clock=clock,
            request_id_headers=("x-request-id", "x-other-id"),
        )
        super().__init__(ScriptedModel(RequestSettings("scripted-1"), clients, transport))


def prompt() -> PromptTemplate[Any]:
    return PromptTemplate(
        ns="tests", key="retry", sections=[MarkdownSection(title="Task", template="Go.")]
    )


def test_a_transient_failure_is_retried_after_a_wait_on_the_clock() -> None:
    exchange = ScriptedExchange(FlakyError(), Answer('{"text": "done"}', {}))
    clock = FakeClock()

    answer = ScriptedAdapter(exchange, clock).evaluate(prompt())

    assert answer.text == "done"
    assert exchange.attempts == [(False, {"turn": 1})] * 2
    assert len(clock.sleeps) == 1


def test_async_sends_take_the_async_client_and_the_same_budget() -> None:
    exchange = ScriptedExchange(FlakyError(), FlakyError(), Answer('{"text": "late"}', {}))

    answer = asyncio.run(ScriptedAdapter(exchange, FakeClock()).aevaluate(prompt()))

    assert answer.text == "late"
    assert len(exchange.attempts) == 3


def test_what_is_left_once_the_budget_is_spent_is_the_plugin_s_error() -> None:
    exchange = ScriptedExchange(FlakyError(), FlakyError(), FlakyError())

    with pytest.raises(PromptEvaluationError, match="gave up after 3: flaky"):
        ScriptedAdapter(exchange, FakeClock()).evaluate(prompt())


def test_a_final_failure_is_not_retried() -> None:
    exchange = ScriptedExchange(FlakyError(final=True))

    with pytest.raises(PromptEvaluationError, match="gave up after 1: final"):
        ScriptedAdapter(exchange, FakeClock()).evaluate(prompt())


def test_an_unreadable_answer_names_the_request_id_from_the_first_header_present() -> None:
    exchange = ScriptedExchange(Answer("not json", {"x-other-id": "req-7"}))

    with pytest.raises(PromptEvaluationError, match="unusable response body") as raised:
        ScriptedAdapter(exchange, FakeClock()).evaluate(prompt())

    assert (raised.value.request_id, raised.value.raw_text) == ("req-7", "not json")


def _stream(*events: str) -> httpx.Response:
    return httpx.Response(200, content="".join(f"data: {e}\n\n" for e in events).encode())


def test_a_stream_is_read_event_by_event_and_its_response_closed() -> None:
    raw = _stream('{"text": "a"}', '{"text": "b"}', '{"done": true}')
    exchange = ScriptedExchange(FlakyError(), Answer("", {}, raw))

    with ScriptedAdapter(exchange, FakeClock()).stream(prompt()) as events:
        pieces = [event.text for event in events if hasattr(event, "text")]

    assert events.response is not None
    assert events.response.text == "ab"
    assert [stream for stream, _ in exchange.attempts] == [True, True]
    assert raw.is_closed
    assert pieces == ["a", "b"]


def test_a_stream_that_ends_before_the_turn_does_is_an_error() -> None:
    raw = _stream('{"text": "a"}')
    exchange = ScriptedExchange(Answer("", {"x-request-id": "req-9"}, raw))

    with (
        pytest.raises(PromptEvaluationError, match="ended before the turn was complete") as raised,
        ScriptedAdapter(exchange, FakeClock()).stream(prompt()) as events,
    ):
        list(events)

    assert raised.value.request_id == "req-9"
    assert raw.is_closed

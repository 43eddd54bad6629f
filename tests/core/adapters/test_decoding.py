"""``decode_stream``: a stream whose events run out before the turn's end is an error carrying
the request id, never a shorter answer; a complete one passes through."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable

import pytest

from affordance.adapters import (
    UnusableResponseError,
    adecode_stream,
    decode_stream,
    decode_turn,
    expect,
    finish_reason,
    string_or_none,
)
from affordance.errors import PromptEvaluationError
from affordance.runtime.model.deltas import Delta, TextPiece, TurnEnd
from affordance.runtime.model.turn import ProviderTurn, Usage

END = TurnEnd(Usage(), "stop", None)


def translate(event: str) -> Iterable[Delta]:
    return (END,) if event == "end" else (TextPiece(event),)


def decoded(events: list[str]) -> list[Delta]:
    return list(decode_stream(events, translate, provider="p", prompt_name="x", request_id="r1"))


def adecoded(events: list[str]) -> list[Delta]:
    async def source() -> AsyncIterator[str]:
        for event in events:
            yield event

    async def collect() -> list[Delta]:
        stream = adecode_stream(source(), translate, provider="p", prompt_name="x", request_id="r1")
        return [delta async for delta in stream]

    return asyncio.run(collect())


@pytest.mark.parametrize("read", [decoded, adecoded], ids=["sync", "async"])
def test_events_that_run_out_before_the_end_are_an_error_with_the_request_id(read) -> None:
    with pytest.raises(PromptEvaluationError) as raised:
        read(["Half an ", "answer"])

    error = raised.value
    assert (error.provider, error.phase, error.request_id) == ("p", "response", "r1")
    assert "ended before the turn was complete" in error.message


@pytest.mark.parametrize("read", [decoded, adecoded], ids=["sync", "async"])
def test_a_stream_that_reaches_its_end_passes_through(read) -> None:
    assert read(["An ", "answer", "end"]) == [TextPiece("An "), TextPiece("answer"), END]


def test_an_end_made_once_the_events_run_out_counts() -> None:
    deltas = decode_stream(
        ["An answer"], translate, provider="p", prompt_name="x", end=lambda: (END,)
    )

    assert list(deltas) == [TextPiece("An answer"), END]


def test_a_request_id_finder_runs_only_when_the_body_cannot_be_read() -> None:
    asked: list[str] = []

    def find() -> str:
        asked.append("asked")
        return "req_7"

    turn = ProviderTurn(text="ok")
    names = {"provider": "p", "prompt_name": "q", "request_id": find}
    assert decode_turn(b'{"a": 1}', lambda data: turn, **names) is turn
    assert asked == []
    with pytest.raises(PromptEvaluationError) as raised:
        decode_turn(b"{not json", lambda data: turn, **names)
    assert raised.value.request_id == "req_7"
    assert asked == ["asked"]


class Events:
    """Events from an object that is no generator but has an async ``aclose`` (as a provider's
    event reader may be); records whether that ``aclose`` ran to its end."""

    def __init__(self, events: list[str]) -> None:
        self._events = iter(events)
        self.closed = False

    def __aiter__(self) -> Events:
        return self

    async def __anext__(self) -> str:
        try:
            return next(self._events)
        except StopIteration:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await asyncio.sleep(0)
        self.closed = True


def test_leaving_an_async_decoded_stream_early_awaits_its_events_aclose() -> None:
    events = Events(["An ", "answer", "end"])

    async def read_one() -> tuple[Delta, bool]:
        stream = adecode_stream(events, translate, provider="p", prompt_name="x")
        first = await stream.__anext__()
        await stream.aclose()
        return first, events.closed

    assert asyncio.run(read_one()) == (TextPiece("An "), True)


def test_an_async_decoded_stream_that_ends_awaits_its_events_aclose() -> None:
    events = Events(["An answer", "end"])

    async def read() -> tuple[list[Delta], bool]:
        stream = adecode_stream(events, translate, provider="p", prompt_name="x")
        return [delta async for delta in stream], events.closed

    assert asyncio.run(read()) == ([TextPiece("An answer"), END], True)


# -- reading what every answer holds -----------------------------------------------------------


def test_expect_passes_a_value_of_its_kind_and_names_the_problem_otherwise() -> None:
    body = {"id": "r"}

    assert expect(body, dict, "expected a JSON object, got {type}") is body
    with pytest.raises(UnusableResponseError, match="expected a JSON object, got list"):
        expect([1], dict, "expected a JSON object, got {type}")
    with pytest.raises(UnusableResponseError, match="the message has no content list"):
        expect(None, list, "the message has no content list")


def test_string_or_none_keeps_strings_only() -> None:
    assert [string_or_none(v) for v in ("r1", "", 7, None, ["r"])] == ["r1", "", None, None, None]


@pytest.mark.parametrize(
    ("reason", "calls", "finished"),
    [
        ("end_turn", False, "stop"),  # renamed by the table
        ("max_tokens", False, "length"),
        ("pause_turn", False, "paused"),
        ("something_new", False, "something_new"),  # passed through as it is
        (None, False, "stop"),  # no reason at all
        ("", False, "stop"),
        ("end_turn", True, "tool_calls"),  # calls decide, whatever the reason says
        ("tool_use", False, "stop"),  # a reason that claims calls the answer lacks
        ("tool_calls", False, "stop"),
    ],
)
def test_finish_reason_maps_a_providers_reason_and_lets_calls_decide(
    reason: object, calls: bool, finished: str
) -> None:
    names = {"end_turn": "stop", "max_tokens": "length", "pause_turn": "paused"}
    names["tool_use"] = "tool_calls"

    assert finish_reason(reason, names, calls=calls) == finished

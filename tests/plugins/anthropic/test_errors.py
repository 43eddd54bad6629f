"""Injected faults: the SDK retries transient failures (429, 5xx, 529 overloaded, timeouts,
resets) with its own ``max_retries``; what is left becomes one ``PromptEvaluationError`` and is
never retried again. A stream that has begun is never retried; its failures are errors, never a
shorter answer. The recorded request count proves who retried."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from loopback import (
    MESSAGES_PATH,
    JsonReply,
    RawReply,
    SseEvent,
    SseReply,
    anthropic_error,
    anthropic_overloaded,
    first_attempt_only,
    message_stream,
    message_stream_events,
    message_text,
    message_tool_uses,
    reset,
    stream_error_event,
    timeout,
)

from affordance import PromptEvaluationError, PromptTemplate

MODES = ("evaluate", "aevaluate", "stream", "astream")
STREAMED = ("stream", "astream")


def answer_for(mode: str, text: str = "Fine.") -> Any:
    reply = message_text(text)
    return message_stream(reply) if mode in STREAMED else reply


@pytest.mark.parametrize("mode", MODES)
def test_a_429_with_retry_after_ms_is_retried_by_the_sdk_then_succeeds(
    loopback: Any, prompt: PromptTemplate[Any], mode: str
) -> None:
    limited = anthropic_error(429, "rate_limit_error", "slow down", retry_after_ms=1)
    loopback.server.set_responder(
        first_attempt_only(limited, then=answer_for(mode)), path=MESSAGES_PATH
    )

    answer = loopback.run(mode, prompt, max_retries=2)

    assert answer.text == "Fine."
    assert [r.retry_count for r in loopback.server.requests] == [0, 1]


@pytest.mark.parametrize("mode", MODES)
def test_an_overloaded_529_is_retried_by_the_sdk_then_succeeds(
    loopback: Any, prompt: PromptTemplate[Any], mode: str
) -> None:
    loopback.server.set_responder(
        first_attempt_only(anthropic_overloaded(retry_after_ms=1), then=answer_for(mode)),
        path=MESSAGES_PATH,
    )

    assert loopback.run(mode, prompt, max_retries=1).text == "Fine."
    assert len(loopback.server.requests) == 2


@pytest.mark.parametrize("mode", MODES)
def test_a_500_left_after_the_sdk_retries_is_one_error_with_status_and_request_id(
    loopback: Any, prompt: PromptTemplate[Any], mode: str
) -> None:
    failure = anthropic_error(
        500, "api_error", "upstream broke", request_id="req_500", retry_after_ms=1
    )
    loopback.server.set_responder(lambda request: failure, path=MESSAGES_PATH)

    with pytest.raises(PromptEvaluationError) as raised:
        loopback.run(mode, prompt, max_retries=1)

    error = raised.value
    assert (error.provider, error.status, error.request_id) == ("anthropic", 500, "req_500")
    assert error.phase == "request"
    assert error.prompt_name == "weather"
    assert "api_error: upstream broke" in str(error)
    assert "max_retries=1" in str(error)
    assert len(loopback.server.requests) == 2  # the SDK's two attempts; none of ours


@pytest.mark.parametrize("mode", ["evaluate", "astream"])
def test_a_client_error_is_not_retried_and_names_the_error_type(
    loopback: Any, prompt: PromptTemplate[Any], mode: str
) -> None:
    loopback.server.script(
        MESSAGES_PATH,
        anthropic_error(400, "invalid_request_error", "tools.0: bad schema", request_id="r4"),
    )

    with pytest.raises(PromptEvaluationError) as raised:
        loopback.run(mode, prompt, max_retries=2)

    assert (raised.value.status, raised.value.request_id) == (400, "r4")
    assert "invalid_request_error: tools.0: bad schema" in str(raised.value)
    assert len(loopback.server.requests) == 1


@pytest.mark.parametrize("mode", ["evaluate", "stream"])
def test_a_timeout_is_retried_by_the_sdk_then_succeeds(
    loopback: Any, prompt: PromptTemplate[Any], mode: str
) -> None:
    loopback.server.set_responder(
        first_attempt_only(timeout(5.0), then=answer_for(mode)), path=MESSAGES_PATH
    )

    answer = loopback.run(mode, prompt, max_retries=1, client_options={"timeout": 0.1})

    assert answer.text == "Fine."
    assert len(loopback.server.requests) == 2


@pytest.mark.parametrize("mode", ["evaluate", "aevaluate"])
def test_a_timeout_left_after_the_sdk_retries_is_an_error_without_status(
    loopback: Any, prompt: PromptTemplate[Any], mode: str
) -> None:
    loopback.server.script(MESSAGES_PATH, timeout(5.0))

    with pytest.raises(PromptEvaluationError) as raised:
        loopback.run(mode, prompt, client_options={"timeout": 0.05})

    assert "timed out" in str(raised.value)
    assert (raised.value.provider, raised.value.status) == ("anthropic", None)
    assert len(loopback.server.requests) == 1


@pytest.mark.parametrize("mode", MODES)
def test_a_connection_reset_left_after_the_sdk_retries_is_an_error(
    loopback: Any, prompt: PromptTemplate[Any], mode: str
) -> None:
    loopback.server.script(MESSAGES_PATH, reset(), reset())

    with pytest.raises(PromptEvaluationError) as raised:
        loopback.run(mode, prompt, max_retries=1)

    assert "could not complete the anthropic request" in str(raised.value)
    assert raised.value.phase == "request"
    assert len(loopback.server.requests) == 2


@pytest.mark.parametrize("mode", ["evaluate", "aevaluate"])
def test_a_malformed_body_is_a_response_error_and_is_not_retried(
    loopback: Any, prompt: PromptTemplate[Any], mode: str
) -> None:
    body = b'{"id": "msg_1", "type": "message", "content": [{"type": "te'
    loopback.server.script(
        MESSAGES_PATH, RawReply(body, content_type="application/json", headers={"request-id": "r"})
    )

    with pytest.raises(PromptEvaluationError) as raised:
        loopback.run(mode, prompt, max_retries=2)

    error = raised.value
    assert (error.phase, error.status, error.provider, error.request_id) == (
        "response",
        200,
        "anthropic",
        "r",
    )
    assert "not JSON" in str(error)
    assert error.raw_text == body.decode()
    assert len(loopback.server.requests) == 1


def test_an_html_page_with_status_200_is_a_response_error(
    loopback: Any, prompt: PromptTemplate[Any]
) -> None:
    loopback.server.script(MESSAGES_PATH, RawReply(b"<html>hi</html>", content_type="text/html"))

    with pytest.raises(PromptEvaluationError) as raised:
        loopback.run("evaluate", prompt)

    assert (raised.value.phase, raised.value.raw_text) == ("response", "<html>hi</html>")


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        ([1, 2], "expected a JSON object"),
        ({"type": "error", "error": {"type": "api_error", "message": "boom"}}, "api_error: boom"),
        ({"id": "m", "type": "message"}, "no content list"),
        ({"id": "m", "content": ["text"]}, "not an object"),
        ({"id": "m", "content": [{"type": "text"}]}, "has no text"),
        ({"id": "m", "content": [{"type": "tool_use", "input": {}}]}, "lacks its id or name"),
    ],
)
def test_a_json_body_that_is_not_a_usable_message_is_a_response_error(
    loopback: Any, prompt: PromptTemplate[Any], body: Any, detail: str
) -> None:
    loopback.server.script(MESSAGES_PATH, JsonReply(body, headers={"request-id": "req_odd"}))

    with pytest.raises(PromptEvaluationError) as raised:
        loopback.run("evaluate", prompt)

    assert raised.value.phase == "response"
    assert raised.value.request_id == "req_odd"
    assert detail in str(raised.value)


def test_a_non_json_error_page_keeps_its_text(loopback: Any, prompt: PromptTemplate[Any]) -> None:
    page = b"<html>bad gateway</html>"
    loopback.server.script(MESSAGES_PATH, RawReply(page, status=502, content_type="text/html"))

    with pytest.raises(PromptEvaluationError) as raised:
        loopback.run("evaluate", prompt)

    assert raised.value.status == 502
    assert raised.value.raw_text == page.decode()


@pytest.mark.parametrize("mode", ["evaluate", "stream"])
def test_the_evaluation_deadline_bounds_the_http_timeout(
    loopback: Any, prompt: PromptTemplate[Any], mode: str
) -> None:
    loopback.server.script(MESSAGES_PATH, timeout(5.0))

    with pytest.raises(PromptEvaluationError) as raised:
        loopback.run(mode, prompt, client_options={"timeout": 30}, deadline=0.2)

    assert "timed out" in str(raised.value)
    assert loopback.server.wait_idle(2.0)


def test_a_large_max_tokens_never_trips_the_sdk_guard_against_long_requests(
    loopback: Any, prompt: PromptTemplate[Any]
) -> None:
    # anthropic refuses a non-streamed create with a large max_tokens and its default timeout
    # ("Streaming is required ..."); the adapter always passes its timeout explicitly.
    loopback.script("evaluate", message_text("Fine."))

    answer = loopback.run("evaluate", prompt, adapter_options={"max_tokens": 128_000})

    assert answer.text == "Fine."
    assert loopback.bodies()[0]["max_tokens"] == 128_000


# -- streams ------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", STREAMED)
@pytest.mark.parametrize("cut_mid_event", [False, True])
def test_a_stream_cut_by_a_reset_is_an_error_and_is_not_retried(
    loopback: Any, prompt: PromptTemplate[Any], mode: str, cut_mid_event: bool
) -> None:
    reply = message_stream(
        message_text("A long answer.", request_id="req_cut"),
        cut_after=4,
        cut_mid_event=cut_mid_event,
    )
    loopback.server.script(MESSAGES_PATH, reply)

    with pytest.raises(PromptEvaluationError) as raised:
        loopback.run(mode, prompt, max_retries=2)

    error = raised.value
    assert (error.provider, error.phase, error.request_id) == ("anthropic", "response", "req_cut")
    assert "stream broke off" in str(error)
    assert len(loopback.server.requests) == 1


@pytest.mark.parametrize("mode", STREAMED)
@pytest.mark.parametrize("cut_after", [0, 4, 6])  # 6: all but message_stop
def test_a_stream_ending_cleanly_without_message_stop_is_an_error(
    loopback: Any, prompt: PromptTemplate[Any], mode: str, cut_after: int
) -> None:
    reply = message_stream(message_text("A long answer."), cut_after=cut_after, cut_abortive=False)
    loopback.server.script(MESSAGES_PATH, reply)

    with pytest.raises(PromptEvaluationError) as raised:
        loopback.run(mode, prompt)

    assert raised.value.provider == "anthropic"
    assert "ended before the turn was complete" in str(raised.value)


@pytest.mark.parametrize("mode", STREAMED)
def test_an_error_event_mid_stream_is_an_error_and_is_not_retried(
    loopback: Any, prompt: PromptTemplate[Any], mode: str
) -> None:
    events = message_stream_events(message_text("Half an answer."), text_chunk=4)
    loopback.server.script(
        MESSAGES_PATH,
        SseReply(
            [*events[:4], stream_error_event("overloaded_error", "Overloaded")],
            headers={"request-id": "req_ev"},
        ),
    )

    with pytest.raises(PromptEvaluationError) as raised:
        loopback.run(mode, prompt, max_retries=2)

    assert "overloaded_error: Overloaded" in str(raised.value)
    assert (raised.value.phase, raised.value.request_id) == ("response", "req_ev")
    assert len(loopback.server.requests) == 1


@pytest.mark.parametrize("mode", STREAMED)
def test_invalid_tool_input_json_in_a_stream_reaches_the_model_as_a_failed_call(
    loopback: Any, prompt: PromptTemplate[Any], calls: Any, mode: str
) -> None:
    events = list(message_stream_events(message_tool_uses([("toolu_1", "get_weather", {})])))
    # content_block_start, then one input_json_delta: make its JSON invalid
    index = next(i for i, e in enumerate(events) if e.event == "content_block_delta")
    bad = {**events[index].data, "delta": {"type": "input_json_delta", "partial_json": '{"city": '}}
    events[index] = dataclasses.replace(events[index], data=bad)
    loopback.server.script(MESSAGES_PATH, SseReply(events), message_stream(message_text("Sorry.")))

    answer = loopback.run(mode, prompt)

    assert answer.text == "Sorry."
    assert calls.seen == []
    (result,) = answer.tool_results
    assert not result.result.success
    assert "not valid JSON" in result.result.message
    follow_up = loopback.bodies()[1]["messages"]
    assert follow_up[1]["content"][0]["input"] == {}  # echoed as an object
    assert follow_up[2]["content"][0]["is_error"] is True


@pytest.mark.parametrize("mode", STREAMED)
def test_a_json_answer_to_a_stream_request_is_a_response_error(
    loopback: Any, prompt: PromptTemplate[Any], mode: str
) -> None:
    loopback.server.script(MESSAGES_PATH, message_text("Not streamed."))

    with pytest.raises(PromptEvaluationError) as raised:
        loopback.run(mode, prompt)

    assert raised.value.phase == "response"
    assert "expected an event stream" in str(raised.value)
    assert "Not streamed." in (raised.value.raw_text or "")


@pytest.mark.parametrize("mode", STREAMED)
def test_an_event_that_is_not_json_is_a_response_error(
    loopback: Any, prompt: PromptTemplate[Any], mode: str
) -> None:
    events = message_stream_events(message_text("Fine."))
    broken = SseEvent(
        '{"type": "content_block_delta", "index": 0, "delta": {', event="content_block_delta"
    )
    loopback.server.script(MESSAGES_PATH, SseReply([*events[:2], broken]))

    with pytest.raises(PromptEvaluationError) as raised:
        loopback.run(mode, prompt)

    assert raised.value.phase == "response"
    assert "not JSON" in str(raised.value)


@pytest.mark.parametrize("mode", STREAMED)
def test_a_stream_with_a_badly_shaped_event_is_a_response_error(
    loopback: Any, prompt: PromptTemplate[Any], mode: str
) -> None:
    events = message_stream_events(message_text("Fine."))
    odd = SseEvent(
        {"type": "content_block_delta", "index": 0, "delta": {}}, event="content_block_delta"
    )  # the open text block's delta, without its type
    loopback.server.script(MESSAGES_PATH, SseReply([*events[:2], odd]))

    with pytest.raises(PromptEvaluationError) as raised:
        loopback.run(mode, prompt)

    assert "content_block_delta event is not shaped as documented" in str(raised.value)


@pytest.mark.parametrize("mode", MODES)
def test_under_a_deadline_a_429_is_retried_by_the_adapter_not_the_sdk(
    loopback: Any, prompt: PromptTemplate[Any], mode: str
) -> None:
    limited = anthropic_error(429, "rate_limit_error", "slow down", retry_after_ms=1)
    loopback.server.script(MESSAGES_PATH, limited)
    loopback.server.script(MESSAGES_PATH, answer_for(mode))

    answer = loopback.run(mode, prompt, max_retries=2, deadline=10.0)

    assert answer.text == "Fine."
    assert [r.retry_count for r in loopback.server.requests] == [0, 0]  # each sent once by the SDK


def test_under_a_deadline_an_overload_asking_for_a_longer_wait_is_final(
    loopback: Any, prompt: PromptTemplate[Any]
) -> None:
    overloaded = anthropic_error(529, "overloaded_error", "Overloaded", retry_after=30)
    loopback.server.script(MESSAGES_PATH, overloaded)

    with pytest.raises(PromptEvaluationError) as raised:
        loopback.run("evaluate", prompt, max_retries=2, deadline=5.0)

    assert (raised.value.phase, raised.value.status) == ("request", 529)
    assert len(loopback.server.requests) == 1

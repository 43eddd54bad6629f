"""Injected faults: the SDK retries transient failures (429, 5xx, timeouts, resets) with its own
``max_retries``; what is left becomes one ``PromptEvaluationError`` and is never retried again.
The recorded request count proves who retried."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from loopback import (
    CHAT_COMPLETIONS_PATH,
    RESPONSES_PATH,
    JsonReply,
    LoopbackServer,
    RawReply,
    chat_text,
    first_attempt_only,
    malformed_json,
    openai_error,
    overloaded,
    rate_limited,
    reset,
    response_text,
    timeout,
)

from affordance import PromptEvaluationError, PromptTemplate
from affordance_openai import OpenAIAdapter

FAST_RETRY = {"retry-after-ms": "1"}  # the SDK honours it for every retryable status
APIS = {"responses": (RESPONSES_PATH, response_text), "chat": (CHAT_COMPLETIONS_PATH, chat_text)}


def route(api: str) -> tuple[str, JsonReply]:
    path, text = APIS[api]
    return path, text("Fine.")


@pytest.mark.parametrize("api", ["responses", "chat"])
def test_a_429_with_retry_after_ms_is_retried_by_the_sdk_then_succeeds(
    server: LoopbackServer, clients: Any, prompt: PromptTemplate[Any], api: str
) -> None:
    path, answer = route(api)
    server.set_responder(first_attempt_only(rate_limited(retry_after_ms=1), then=answer), path=path)
    adapter = OpenAIAdapter("gpt-test", client=clients.sync(max_retries=2), api=api)

    assert adapter.evaluate(prompt).text == "Fine."
    assert [r.retry_count for r in server.requests] == [0, 1]


@pytest.mark.parametrize("api", ["responses", "chat"])
def test_a_500_left_after_the_sdk_retries_is_one_error_with_status_and_request_id(
    server: LoopbackServer, clients: Any, prompt: PromptTemplate[Any], api: str
) -> None:
    path, _ = route(api)
    failure = openai_error(500, "upstream broke", request_id="req_500", headers=FAST_RETRY)
    server.set_responder(lambda request: failure, path=path)
    adapter = OpenAIAdapter("gpt-test", client=clients.sync(max_retries=1), api=api)

    with pytest.raises(PromptEvaluationError) as raised:
        adapter.evaluate(prompt)

    error = raised.value
    assert (error.provider, error.status, error.request_id) == ("openai", 500, "req_500")
    assert error.phase == "request"
    assert error.prompt_name == "weather"
    assert "upstream broke" in str(error)
    assert "max_retries=1" in str(error)
    assert len(server.requests) == 2  # the SDK's two attempts; none of ours


def test_a_503_overload_is_retried_by_the_sdk_then_succeeds(
    server: LoopbackServer, clients: Any, prompt: PromptTemplate[Any]
) -> None:
    server.set_responder(
        first_attempt_only(overloaded(503, headers=FAST_RETRY), then=response_text("Fine.")),
        path=RESPONSES_PATH,
    )
    adapter = OpenAIAdapter("gpt-test", client=clients.sync(max_retries=1))

    assert adapter.evaluate(prompt).text == "Fine."
    assert len(server.requests) == 2


def test_a_client_error_is_not_retried_and_names_the_error_code(
    server: LoopbackServer, clients: Any, prompt: PromptTemplate[Any]
) -> None:
    server.script(
        RESPONSES_PATH,
        openai_error(400, "Invalid schema", code="invalid_function_parameters", request_id="r4"),
    )
    adapter = OpenAIAdapter("gpt-test", client=clients.sync(max_retries=2))

    with pytest.raises(PromptEvaluationError) as raised:
        adapter.evaluate(prompt)

    assert (raised.value.status, raised.value.request_id) == (400, "r4")
    assert "invalid_function_parameters: Invalid schema" in str(raised.value)
    assert len(server.requests) == 1


def test_a_timeout_is_retried_by_the_sdk_then_succeeds(
    server: LoopbackServer, clients: Any, prompt: PromptTemplate[Any]
) -> None:
    server.set_responder(
        first_attempt_only(timeout(5.0), then=response_text("Fine.")), path=RESPONSES_PATH
    )
    adapter = OpenAIAdapter("gpt-test", client=clients.sync(max_retries=1, timeout=0.1))

    assert adapter.evaluate(prompt).text == "Fine."
    assert len(server.requests) == 2


def test_a_timeout_left_after_the_sdk_retries_is_an_error_without_status(
    server: LoopbackServer, clients: Any, prompt: PromptTemplate[Any]
) -> None:
    server.script(RESPONSES_PATH, timeout(5.0))
    adapter = OpenAIAdapter("gpt-test", client=clients.sync(max_retries=0, timeout=0.05))

    with pytest.raises(PromptEvaluationError) as raised:
        adapter.evaluate(prompt)

    assert "timed out" in str(raised.value)
    assert (raised.value.provider, raised.value.status) == ("openai", None)
    assert len(server.requests) == 1


def test_a_connection_reset_left_after_the_sdk_retries_is_an_error(
    server: LoopbackServer, clients: Any, prompt: PromptTemplate[Any]
) -> None:
    server.script(RESPONSES_PATH, reset())

    async def run() -> None:
        async with clients.async_(max_retries=0) as client:
            await OpenAIAdapter("gpt-test", client=client).aevaluate(prompt)

    with pytest.raises(PromptEvaluationError) as raised:
        asyncio.run(run())

    assert "could not complete the openai request" in str(raised.value)
    assert raised.value.phase == "request"
    assert len(server.requests) == 1


@pytest.mark.parametrize("api", ["responses", "chat"])
def test_a_malformed_body_is_a_response_error_and_is_not_retried(
    server: LoopbackServer, clients: Any, prompt: PromptTemplate[Any], api: str
) -> None:
    path, _ = route(api)
    server.script(path, malformed_json())
    adapter = OpenAIAdapter("gpt-test", client=clients.sync(max_retries=2), api=api)

    with pytest.raises(PromptEvaluationError) as raised:
        adapter.evaluate(prompt)

    error = raised.value
    assert (error.phase, error.status, error.provider) == ("response", 200, "openai")
    assert "not JSON" in str(error)
    assert error.raw_text == malformed_json().body.decode()
    assert len(server.requests) == 1


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        ([1, 2], "expected a JSON object"),
        (
            {
                "id": "r",
                "status": "failed",
                "output": [],
                "error": {"code": "server_error", "message": "boom"},
            },
            "failed: server_error: boom",
        ),
        ({"id": "r", "status": "completed"}, "no output list"),
        (
            {"id": "r", "status": "completed", "output": [{"type": "function_call"}]},
            "lacks call_id or name",
        ),
    ],
)
def test_a_json_body_that_is_not_a_usable_response_is_a_response_error(
    server: LoopbackServer, clients: Any, prompt: PromptTemplate[Any], body: Any, detail: str
) -> None:
    server.script(RESPONSES_PATH, JsonReply(body, headers={"x-request-id": "req_odd"}))
    adapter = OpenAIAdapter("gpt-test", client=clients.sync())

    with pytest.raises(PromptEvaluationError) as raised:
        adapter.evaluate(prompt)

    assert raised.value.phase == "response"
    assert raised.value.request_id == "req_odd"
    assert detail in str(raised.value)


def test_a_non_json_error_page_keeps_its_text(
    server: LoopbackServer, clients: Any, prompt: PromptTemplate[Any]
) -> None:
    page = b"<html>bad gateway</html>"
    server.script(RESPONSES_PATH, RawReply(page, status=502, content_type="text/html"))
    adapter = OpenAIAdapter("gpt-test", client=clients.sync())

    with pytest.raises(PromptEvaluationError) as raised:
        adapter.evaluate(prompt)

    assert raised.value.status == 502
    assert raised.value.raw_text == page.decode()


def test_the_evaluation_deadline_bounds_the_http_timeout(
    server: LoopbackServer, clients: Any, prompt: PromptTemplate[Any]
) -> None:
    server.script(RESPONSES_PATH, timeout(5.0))
    adapter = OpenAIAdapter("gpt-test", client=clients.sync(max_retries=0, timeout=30))

    with pytest.raises(PromptEvaluationError) as raised:
        adapter.evaluate(prompt, deadline=0.2)

    assert "timed out" in str(raised.value)
    assert server.wait_idle(2.0)


# -- under an evaluation deadline the adapter spends the client's retries, never past it ------


@pytest.mark.parametrize("api", ["responses", "chat"])
def test_under_a_deadline_a_429_is_retried_by_the_adapter_not_the_sdk(
    server: LoopbackServer, clients: Any, prompt: PromptTemplate[Any], api: str
) -> None:
    path, answer = route(api)
    server.script(path, rate_limited(retry_after_ms=1))
    server.script(path, answer)
    adapter = OpenAIAdapter("gpt-test", client=clients.sync(max_retries=2), api=api)

    assert adapter.evaluate(prompt, deadline=10.0).text == "Fine."
    assert [r.retry_count for r in server.requests] == [0, 0]  # each sent once by the SDK


def test_under_a_deadline_no_retry_starts_that_would_end_past_it(
    server: LoopbackServer, clients: Any, prompt: PromptTemplate[Any]
) -> None:
    server.script(RESPONSES_PATH, rate_limited(retry_after_s=30))
    adapter = OpenAIAdapter("gpt-test", client=clients.sync(max_retries=2))

    with pytest.raises(PromptEvaluationError) as raised:
        adapter.evaluate(prompt, deadline=5.0)

    assert (raised.value.phase, raised.value.status) == ("request", 429)
    assert len(server.requests) == 1


def test_under_a_deadline_the_server_says_what_is_retried(
    server: LoopbackServer, clients: Any, prompt: PromptTemplate[Any]
) -> None:
    adapter = OpenAIAdapter("gpt-test", client=clients.sync(max_retries=2))
    server.script(RESPONSES_PATH, openai_error(500, "final", headers={"x-should-retry": "false"}))
    with pytest.raises(PromptEvaluationError) as raised:
        adapter.evaluate(prompt, deadline=10.0)
    assert raised.value.status == 500
    assert len(server.requests) == 1

    retry = {"x-should-retry": "true", **FAST_RETRY}
    server.script(RESPONSES_PATH, openai_error(400, "try again", headers=retry))
    server.script(RESPONSES_PATH, response_text("Fine."))
    assert adapter.evaluate(prompt, deadline=10.0).text == "Fine."
    assert len(server.requests) == 3


def test_under_a_deadline_an_async_run_retries_the_same_way(
    server: LoopbackServer, clients: Any, prompt: PromptTemplate[Any]
) -> None:
    server.script(RESPONSES_PATH, openai_error(503, "busy", headers=FAST_RETRY))
    server.script(RESPONSES_PATH, response_text("Fine."))

    async def run() -> str | None:
        async with clients.async_(max_retries=1) as client:
            adapter = OpenAIAdapter("gpt-test", client=client)
            return (await adapter.aevaluate(prompt, deadline=10.0)).text

    assert asyncio.run(run()) == "Fine."
    assert [r.retry_count for r in server.requests] == [0, 0]

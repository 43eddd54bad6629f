"""Provider failures through the real SDK: the adapter's retry budget (429 with ``Retry-After``
or ``RetryInfo``, 5xx, overload, timeouts, resets), and what is left of a failure — a
``PromptEvaluationError`` with provider, status and request id. Waits go through a fake clock."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from google.genai import types
from loopback import (
    JsonReply,
    LoopbackServer,
    RawReply,
    generate_path,
    google_deadline_exceeded,
    google_error,
    google_internal_error,
    google_rate_limited,
    google_text,
    google_unavailable,
    malformed_json,
    reset,
    timeout,
)

from affordance import PromptEvaluationError
from affordance.testing import FakeClock
from affordance_google import GoogleAdapter, RequestRetryPolicy

PATH = generate_path("gemini-test")
OK = JsonReply(google_text("Recovered."))


def run(adapter: GoogleAdapter, prompt: Any, mode: str) -> Any:
    if mode == "sync":
        return adapter.evaluate(prompt)

    async def go() -> Any:
        try:
            return await adapter.aevaluate(prompt)
        finally:
            await adapter.connection.clients.async_client().aclose()

    return asyncio.run(go())


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    chosen: str = request.param
    return chosen


def test_a_429_waits_as_long_as_retry_after_says(
    server: LoopbackServer,
    make_adapter: Callable[..., GoogleAdapter],
    prompt: Any,
    clock: FakeClock,
    mode: str,
) -> None:
    server.script(PATH, google_rate_limited(retry_after_s=5), OK)

    response = run(make_adapter(aio=mode == "async"), prompt, mode)

    assert response.text == "Recovered."
    assert clock.sleeps == [5.0]
    assert len(server.requests) == 2


def test_a_429_without_retry_after_waits_for_its_retry_info_delay(
    server: LoopbackServer, make_adapter: Callable[..., GoogleAdapter], prompt: Any, clock: Any
) -> None:
    server.script(PATH, google_rate_limited(retry_delay_s=26), OK)

    make_adapter().evaluate(prompt)

    assert clock.sleeps == [26.0]


def test_a_429_asking_for_a_longer_wait_than_the_budget_allows_is_final(
    server: LoopbackServer, make_adapter: Callable[..., GoogleAdapter], prompt: Any, clock: Any
) -> None:
    server.script(PATH, google_rate_limited(retry_after_s=600))

    with pytest.raises(PromptEvaluationError) as info:
        make_adapter().evaluate(prompt)

    assert (info.value.provider, info.value.status) == ("google", 429)
    assert "RESOURCE_EXHAUSTED" in str(info.value)
    assert clock.sleeps == []
    assert len(server.requests) == 1


@pytest.mark.parametrize(
    "fault",
    [
        google_internal_error(),
        google_unavailable(),
        google_deadline_exceeded(),
        RawReply(b"<html>bad gateway</html>", status=502, content_type="text/html"),
        google_error(408, "DEADLINE_EXCEEDED"),
    ],
    ids=["500", "503-overloaded", "504", "502-html", "408"],
)
def test_server_failures_are_retried_with_backoff(
    server: LoopbackServer,
    make_adapter: Callable[..., GoogleAdapter],
    prompt: Any,
    clock: FakeClock,
    fault: Any,
    mode: str,
) -> None:
    server.script(PATH, fault, fault, OK)

    response = run(make_adapter(aio=mode == "async"), prompt, mode)

    assert response.text == "Recovered."
    assert len(clock.sleeps) == 2
    assert 0.375 <= clock.sleeps[0] <= 0.625  # 0.5 s ± 25 %
    assert 0.75 <= clock.sleeps[1] <= 1.25


def test_once_the_budget_is_spent_the_error_carries_status_and_request_id(
    server: LoopbackServer, make_adapter: Callable[..., GoogleAdapter], prompt: Any, mode: str
) -> None:
    fault = google_error(503, "UNAVAILABLE", "overloaded", headers={"x-request-id": "req-9"})
    server.script(PATH, fault, fault, fault)

    with pytest.raises(PromptEvaluationError) as info:
        run(make_adapter(aio=mode == "async"), prompt, mode)

    error = info.value
    assert (error.provider, error.status, error.request_id) == ("google", 503, "req-9")
    assert error.phase == "request"
    assert error.transient  # another attempt may succeed: a durable run goes on trying
    assert "after 3 attempts" in error.message
    assert "UNAVAILABLE: overloaded" in error.message
    assert "overloaded" in (error.raw_text or "")
    assert len(server.requests) == 3


def test_a_client_error_is_not_retried(
    server: LoopbackServer, make_adapter: Callable[..., GoogleAdapter], prompt: Any, clock: Any
) -> None:
    server.script(PATH, google_error(400, "INVALID_ARGUMENT", "bad schema"))

    with pytest.raises(PromptEvaluationError) as info:
        make_adapter().evaluate(prompt)

    assert info.value.status == 400
    assert not info.value.transient
    assert "INVALID_ARGUMENT: bad schema" in info.value.message
    assert clock.sleeps == []


@pytest.mark.parametrize(
    "fault", [reset(), reset(abortive=False)], ids=["rst", "fin-without-reply"]
)
def test_a_reset_connection_is_retried(
    server: LoopbackServer,
    make_adapter: Callable[..., GoogleAdapter],
    prompt: Any,
    fault: Any,
    mode: str,
) -> None:
    server.script(PATH, fault, OK)

    response = run(make_adapter(aio=mode == "async"), prompt, mode)

    assert response.text == "Recovered."
    assert len(server.requests) == 2


def test_a_timeout_is_retried_and_then_reported(
    server: LoopbackServer, make_adapter: Callable[..., GoogleAdapter], prompt: Any, mode: str
) -> None:
    server.script(PATH, timeout(5.0), timeout(5.0))
    adapter = make_adapter(
        aio=mode == "async",
        retry=RequestRetryPolicy(max_retries=1),
        client_options={"timeout": 150},  # milliseconds
    )

    with pytest.raises(PromptEvaluationError, match="Timeout") as info:
        run(adapter, prompt, mode)

    assert info.value.provider == "google"
    assert info.value.transient
    assert "after 2 attempts" in info.value.message
    assert len(server.requests) == 2


def test_a_malformed_body_is_a_response_error_and_is_not_retried(
    server: LoopbackServer, make_adapter: Callable[..., GoogleAdapter], prompt: Any, mode: str
) -> None:
    server.script(PATH, malformed_json())

    with pytest.raises(PromptEvaluationError, match="not JSON") as info:
        run(make_adapter(aio=mode == "async"), prompt, mode)

    assert (info.value.phase, info.value.status) == ("response", 200)
    assert len(server.requests) == 1


def test_the_sdk_never_retries_on_top_of_the_adapter(
    server: LoopbackServer, make_adapter: Callable[..., GoogleAdapter], prompt: Any
) -> None:
    fault = google_internal_error()
    server.script(PATH, *[fault] * 3)
    retrying_client = {"retry_options": types.HttpRetryOptions(attempts=5, initial_delay=0.01)}

    with pytest.raises(PromptEvaluationError):
        make_adapter(client_options=retrying_client).evaluate(prompt)

    assert len(server.requests) == 3  # the adapter's budget, not 3 x 5


def test_no_retries_means_one_attempt(
    server: LoopbackServer, make_adapter: Callable[..., GoogleAdapter], prompt: Any
) -> None:
    server.script(PATH, google_unavailable())

    with pytest.raises(PromptEvaluationError, match="HTTP 503") as info:
        make_adapter(retry=RequestRetryPolicy(max_retries=0)).evaluate(prompt)

    assert "attempts" not in info.value.message


def test_a_wait_that_would_outlast_the_deadline_is_not_started(
    server: LoopbackServer, make_adapter: Callable[..., GoogleAdapter], prompt: Any, clock: Any
) -> None:
    server.script(PATH, google_rate_limited(retry_after_s=30))
    adapter = make_adapter()

    with pytest.raises(PromptEvaluationError) as info:
        adapter.evaluate(prompt, deadline=10.0)

    assert info.value.status == 429
    assert clock.sleeps == []


def test_retry_after_may_be_an_http_date_and_nonsense_falls_back_to_backoff() -> None:
    import email.utils
    import time

    from google.genai import errors

    from affordance.adapters.retry import Transient
    from affordance_google._transport import FAILURES

    class Response:
        def __init__(self, value: str) -> None:
            self.headers = {"retry-after": value}

    soon = email.utils.formatdate(time.time() + 30, usegmt=True)
    dated = FAILURES.classify(errors.ClientError(429, {"error": {}}, Response(soon)))  # type: ignore[arg-type]
    nonsense = FAILURES.classify(errors.ClientError(429, {"error": {}}, Response("soon")))  # type: ignore[arg-type]

    assert dated is not None
    assert 25 <= (dated.retry_after or 0) <= 31
    assert nonsense == Transient("HTTP 429 None", None)

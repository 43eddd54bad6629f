"""``SdkFailures`` (``affordance.adapters.sdk_failures``): from a plugin's reading of its SDK's
HTTP error, which failures are worth another attempt (and after what wait), and the error left
of one once the retry budget is spent."""

from __future__ import annotations

import httpx
import pytest

from affordance.adapters import (
    ClientPair,
    HttpFailure,
    RequestRetryPolicy,
    RetryingTransport,
    SdkFailures,
    Transient,
    error_detail,
)
from affordance.testing import FakeClock


class ApiError(Exception):
    """An SDK's HTTP error, as the scripted SDK raises it."""

    def __init__(self, failure: HttpFailure) -> None:
        super().__init__(failure.message)
        self.failure = failure


def read(error: Exception) -> HttpFailure | None:
    return error.failure if isinstance(error, ApiError) else None


FAILURES = SdkFailures("acme", read, frozenset({429, 503}), ("x-request-id", "x-acme-id"))


def api_error(
    status: int, *, headers: dict[str, str] | None = None, wait: float | None = None
) -> ApiError:
    failure = HttpFailure(status, "UNAVAILABLE", "busy", headers, '{"error": "busy"}', wait)
    return ApiError(failure)


def test_a_transient_status_waits_as_long_as_retry_after_says() -> None:
    error = api_error(429, headers={"retry-after": "5"}, wait=26.0)

    assert FAILURES.classify(error) == Transient("HTTP 429 UNAVAILABLE", 5.0)


@pytest.mark.parametrize("header", [None, "soon", " "])
def test_without_a_usable_retry_after_the_body_s_wait_counts(header: str | None) -> None:
    headers = None if header is None else {"retry-after": header}

    assert FAILURES.classify(api_error(503, headers=headers, wait=26.0)) == Transient(
        "HTTP 503 UNAVAILABLE", 26.0
    )
    assert FAILURES.classify(api_error(503, headers=headers)) == Transient(
        "HTTP 503 UNAVAILABLE", None
    )


def test_a_status_outside_the_transient_ones_is_final() -> None:
    assert FAILURES.classify(api_error(400)) is None


def test_a_timeout_or_reset_is_transient_and_anything_else_is_not() -> None:
    assert FAILURES.classify(httpx.ReadTimeout("slow")) == Transient("ReadTimeout")
    assert FAILURES.classify(httpx.ConnectError("refused")) == Transient("ConnectError")
    assert FAILURES.classify(ValueError("no key")) is None


def test_what_is_left_of_a_status_carries_status_request_id_and_body() -> None:
    error = api_error(503, headers={"x-acme-id": "req-9"})

    final = FAILURES.give_up(error, 3, prompt_name="p")

    assert final.message == "acme answered HTTP 503 after 3 attempts: UNAVAILABLE: busy"
    assert (final.provider, final.status, final.request_id) == ("acme", 503, "req-9")
    assert (final.prompt_name, final.phase, final.transient) == ("p", "request", True)
    assert final.raw_text == '{"error": "busy"}'


def test_one_attempt_is_not_counted_and_a_final_status_is_not_transient() -> None:
    final = FAILURES.give_up(api_error(400), 1, prompt_name="p")

    assert final.message == "acme answered HTTP 400: UNAVAILABLE: busy"
    assert not final.transient
    assert final.request_id is None


def test_what_is_left_of_a_transport_failure_names_it() -> None:
    final = FAILURES.give_up(httpx.ReadTimeout("slow"), 2, prompt_name="p")

    assert final.message == "the acme request failed after 2 attempts: ReadTimeout: slow"
    assert final.transient
    assert final.status is None


def test_anything_else_is_a_client_that_could_not_send() -> None:
    final = FAILURES.give_up(ValueError("no key"), 1, prompt_name="p")

    assert final.message == "the acme client could not send the request: ValueError: no key"
    assert not final.transient


@pytest.mark.parametrize(
    ("kind", "message", "expected"),
    [
        ("UNAVAILABLE", "busy", "UNAVAILABLE: busy"),
        (None, "busy", "busy"),
        ("UNAVAILABLE", None, "UNAVAILABLE"),
        (None, "", "fallback"),
    ],
)
def test_an_error_detail_is_kind_and_message_else_what_there_is(
    kind: str | None, message: str | None, expected: str
) -> None:
    assert error_detail(kind, message, "fallback") == expected


def test_a_retrying_transport_takes_its_failures_whole() -> None:
    clients: ClientPair[object, object] = ClientPair.of(
        object(), None, provider="acme", sync_type=object, async_type=int
    )
    policy = RequestRetryPolicy(max_retries=1)
    clock = FakeClock()

    transport = RetryingTransport.of(None, clients, FAILURES, policy=policy, clock=clock)  # type: ignore[arg-type]

    assert (transport.provider, transport.request_id_headers) == (
        "acme",
        ("x-request-id", "x-acme-id"),
    )
    assert (transport.classify, transport.give_up) == (FAILURES.classify, FAILURES.give_up)
    assert (transport.policy, transport.clock) == (policy, clock)

"""``stainless_error``: one mapping for the SDKs that share Stainless's exception classes, and
which of its errors are transient (another attempt may succeed: what a durable run retries).

The plugins' tests drive it through the real ``openai`` and ``anthropic`` SDKs over HTTP; here
a package with the same four classes shows the mapping without either SDK installed."""

from __future__ import annotations

import types

import pytest

from affordance.adapters.errors import stainless_error
from affordance.errors import PromptEvaluationError


class APIError(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class APIStatusError(APIError):
    def __init__(self, message: str, status_code: int, body: object) -> None:
        super().__init__(message)
        self.status_code, self.body, self.request_id, self.response = (
            status_code,
            body,
            "req_1",
            None,
        )


class APIConnectionError(APIError):
    pass


class APITimeoutError(APIConnectionError):
    pass


SDK = types.ModuleType("fake_sdk")
for kind in (APIError, APIStatusError, APIConnectionError, APITimeoutError):
    setattr(SDK, kind.__name__, kind)


def test_a_status_the_client_gave_up_on_carries_status_request_id_and_kind() -> None:
    body = {"error": {"type": "overloaded_error", "code": "busy", "message": "try later"}}

    error = stainless_error(
        SDK,
        APIStatusError("HTTP 529", 529, body),
        provider="acme",
        prompt_name="p",
        max_retries=2,
        error_kinds=("type",),
    )

    assert (error.status, error.request_id, error.provider, error.prompt_name) == (
        529,
        "req_1",
        "acme",
        "p",
    )
    assert "overloaded_error: try later" in str(error)
    assert "max_retries=2" in str(error)


def test_a_timeout_and_a_connection_failure_are_transport_errors() -> None:
    timed_out = stainless_error(
        SDK, APITimeoutError("slow"), provider="acme", prompt_name="p", max_retries=0
    )
    refused = stainless_error(
        SDK, APIConnectionError("refused"), provider="acme", prompt_name="p", max_retries=0
    )

    assert timed_out.status is None
    assert "timed out" in str(timed_out)
    assert "timed out" not in str(refused)


def test_other_sdk_errors_keep_their_message_and_anything_else_is_a_client_error() -> None:
    event = stainless_error(
        SDK, APIError("stream error event"), provider="acme", prompt_name="p", max_retries=None
    )
    other = stainless_error(
        SDK, ValueError("no API key"), provider="acme", prompt_name="p", max_retries=None
    )

    assert str(event).startswith("acme failed: stream error event")
    assert str(other).startswith("the acme client could not be used: no API key")


def _mapped(error: BaseException) -> object:
    return stainless_error(SDK, error, provider="acme", prompt_name="p", max_retries=0)


@pytest.mark.parametrize("status", [408, 409, 429, 500, 502, 503, 504, 529])
def test_rate_limits_server_errors_and_overload_are_transient(status: int) -> None:
    error = _mapped(APIStatusError("failed", status, None))

    assert isinstance(error, PromptEvaluationError)
    assert error.transient


@pytest.mark.parametrize("status", [400, 401, 403, 404, 413, 422, 200])
def test_other_statuses_are_final(status: int) -> None:
    error = _mapped(APIStatusError("failed", status, None))

    assert isinstance(error, PromptEvaluationError)
    assert not error.transient


def test_a_lost_connection_or_a_timeout_is_transient_and_other_sdk_failures_are_not() -> None:
    assert getattr(_mapped(APIConnectionError("connection reset")), "transient", None) is True
    assert getattr(_mapped(APITimeoutError("timed out")), "transient", None) is True
    assert getattr(_mapped(APIError("an error event")), "transient", None) is False
    assert getattr(_mapped(RuntimeError("no api key")), "transient", None) is False
    assert not PromptEvaluationError("failed").transient

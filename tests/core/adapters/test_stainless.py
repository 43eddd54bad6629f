"""``http_response_class``. ``JsonPost`` itself runs over real HTTP in every OpenAI and
Anthropic plugin test (plain, streamed, and the fault matrix), at the SDKs' floor and latest."""

from __future__ import annotations

import httpx2
import pytest

from affordance.adapters.stainless import bounded_timeout, http_response_class


class _SdkHttpClient(httpx2.Client):
    """Like an SDK's ``DefaultHttpxClient``: a subclass of the httpx client it is built on."""


def test_the_response_class_is_that_of_the_httpx_the_sdk_is_built_on() -> None:
    assert http_response_class(_SdkHttpClient) is httpx2.Response


def test_a_class_that_is_no_httpx_client_is_refused() -> None:
    with pytest.raises(TypeError, match="not an httpx client class"):
        http_response_class(dict)


@pytest.mark.parametrize(
    ("client_timeout", "remaining", "timeout"),
    [
        (600.0, 2.0, 2.0),  # the deadline is nearer
        (1.5, 30.0, 1.5),  # the client's own is shorter
        (None, 3.0, 3.0),  # no client timeout at all
        (httpx2.Timeout(5.0), 3.0, 3.0),  # a structured timeout gives way
        (10.0, 0.0, 0.001),  # never zero: that would mean "no timeout"
    ],
)
def test_an_attempt_s_timeout_never_outlasts_the_deadline(
    client_timeout: object, remaining: float, timeout: float
) -> None:
    assert bounded_timeout(client_timeout, remaining) == timeout

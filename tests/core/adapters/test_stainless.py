"""``http_response_class``, ``bounded_timeout``, and ``JsonPost`` on an SDK whose options are no
pydantic 2 model. ``JsonPost`` itself runs over real HTTP in every OpenAI and Anthropic plugin
test (plain, streamed, the fault matrix, retries under a deadline), at the SDKs' floor and
latest; ``test_request_options.py`` there compares what it sends with the SDK's ``post``."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from typing import Any

import pytest

from affordance.adapters.stainless import JsonPost, bounded_timeout, http_response_class


@pytest.fixture
def http_package() -> Iterator[types.ModuleType]:
    """A stand-in for ``httpx2``/``httpx``: a package with ``Client`` and ``Response``."""
    package = types.ModuleType("standin_http")

    class Client:
        pass

    class Response:
        pass

    Client.__module__ = Response.__module__ = "standin_http._client"
    package.Client, package.Response = Client, Response  # type: ignore[attr-defined]
    sys.modules["standin_http"] = package
    try:
        yield package
    finally:
        del sys.modules["standin_http"]


def test_the_response_class_is_that_of_the_httpx_the_sdk_is_built_on(
    http_package: types.ModuleType,
) -> None:
    class DefaultHttpxClient(http_package.Client):  # type: ignore[name-defined,misc]
        """Like an SDK's: a subclass of the httpx client it is built on."""

    assert http_response_class(DefaultHttpxClient) is http_package.Response


def test_a_class_that_is_no_httpx_client_is_refused() -> None:
    with pytest.raises(TypeError, match="not an httpx client class"):
        http_response_class(dict)


class _StructuredTimeout:
    """Like ``httpx.Timeout``: no plain number."""


@pytest.mark.parametrize(
    ("client_timeout", "remaining", "timeout"),
    [
        (600.0, 2.0, 2.0),  # the deadline is nearer
        (1.5, 30.0, 1.5),  # the client's own is shorter
        (None, 3.0, 3.0),  # no client timeout at all
        (_StructuredTimeout(), 3.0, 3.0),  # a structured timeout gives way
        (10.0, 0.0, 0.001),  # never zero: that would mean "no timeout"
    ],
)
def test_an_attempt_s_timeout_never_outlasts_the_deadline(
    client_timeout: object, remaining: float, timeout: float
) -> None:
    assert bounded_timeout(client_timeout, remaining) == timeout


class PostOnlyClient:
    """Records what ``post`` is given; its ``request`` must not be called."""

    max_retries = 0

    def __init__(self) -> None:
        self.posted: list[tuple[Any, ...]] = []

    def post(self, path: str, *, cast_to: Any, body: Any, options: Any, stream: bool) -> str:
        self.posted.append((path, body, options, stream))
        return "response"

    def request(self, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("request() was called")


def test_on_pydantic_1_every_request_goes_through_post(http_package: types.ModuleType) -> None:
    class Pydantic1Options:
        """Like a ``FinalRequestOptions`` on pydantic 1: no ``model_copy``."""

        @classmethod
        def construct(cls, **values: Any) -> Pydantic1Options:
            raise AssertionError("the options were built")

    sender = JsonPost(
        "/v1/things",
        http_client_class=http_package.Client,
        status_error=LookupError,
        connection_error=ConnectionError,
        options_class=Pydantic1Options,
    )
    client = PostOnlyClient()

    assert sender.send(client, {"a": 1}, stream=True, retries=False) == "response"
    assert client.posted == [("/v1/things", {"a": 1}, {"max_retries": 0}, True)]

"""``affordance.adapters.raw_http``: an SDK's raw HTTP response, whichever library made it — how
its transport fails, which failures are worth another attempt, and how it is read and closed.
The Google plugin's tests run it over real HTTP (``httpx2``, ``httpx``, ``aiohttp``)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from affordance.adapters import (
    achunks,
    aclose_response,
    chunks,
    header_value,
    is_transient_transport_error,
    is_transport_error,
    response_transport_errors,
)


def _from(package: str, name: str, base: type[Any] = object) -> type[Any]:
    """A class that says it comes from ``package`` (the module is how libraries are told)."""
    return type(name, (base,), {"__module__": f"{package}.models"})


def test_an_httpx_response_fails_with_the_transport_error_of_its_own_package() -> None:
    response = httpx.Response(200)

    assert response_transport_errors(response) == (httpx.TransportError,)
    assert response_transport_errors(object()) == ()


@pytest.mark.parametrize(
    ("error", "transient"),
    [
        (httpx.ConnectTimeout("slow"), True),
        (httpx.ConnectError("refused"), True),
        (httpx.RemoteProtocolError("cut short"), True),
        (httpx.UnsupportedProtocol("ftp"), False),  # a transport failure, not a passing one
        (ConnectionResetError("reset"), True),
        (TimeoutError(), True),
        (ValueError("no"), False),
    ],
)
def test_timeouts_refused_reset_and_cut_connections_are_worth_another_attempt(
    error: BaseException, transient: bool
) -> None:
    assert is_transient_transport_error(error) is transient


def test_aiohttp_failures_are_told_apart_by_name() -> None:
    disconnected = _from("aiohttp", "ServerDisconnectedError", Exception)
    invalid_url = _from("aiohttp", "InvalidURL", Exception)

    assert is_transient_transport_error(disconnected())
    assert not is_transient_transport_error(invalid_url())
    assert is_transport_error(invalid_url())


def test_only_the_http_layer_s_failures_are_transport_errors() -> None:
    assert is_transport_error(httpx.UnsupportedProtocol("ftp"))
    assert is_transport_error(OSError("no route"))
    assert not is_transport_error(ValueError("a bug"))


def test_the_first_header_present_and_not_empty_is_the_value() -> None:
    headers = httpx.Headers({"x-request-id": "", "x-goog-request-id": "g-1"})

    assert header_value(headers, ("x-request-id", "x-goog-request-id")) == "g-1"
    assert header_value(headers, ("request-id",)) is None
    assert header_value(None, ("x-request-id",)) is None


def test_a_requests_response_is_read_with_iter_content_and_others_with_iter_bytes() -> None:
    class RequestsResponse(_from("requests", "Response")):  # type: ignore[misc]
        __module__ = "requests.models"

        def iter_content(self, chunk_size: int | None) -> list[bytes]:
            assert chunk_size is None  # as the bytes arrive
            return [b"data: 1\n\n"]

    assert list(chunks(RequestsResponse())) == [b"data: 1\n\n"]
    assert list(chunks(httpx.Response(200, content=b"data: 2\n\n"))) == [b"data: 2\n\n"]


def test_an_async_httpx_response_left_early_is_closed_in_the_consumer_s_task() -> None:
    class Stream(httpx.AsyncByteStream):
        async def __aiter__(self) -> AsyncIterator[bytes]:
            yield b"one"
            yield b"two"

    async def first_piece() -> tuple[bytes, bool]:
        response = httpx.Response(200, stream=Stream())
        pieces = achunks(response)
        piece = await anext(pieces)
        await pieces.aclose()  # type: ignore[attr-defined]
        return piece, response.is_closed

    assert asyncio.run(first_piece()) == (b"one", True)


def test_an_aiohttp_response_is_read_by_its_content_and_released() -> None:
    class Content:
        async def iter_any(self) -> AsyncIterator[bytes]:
            yield b"data: 1\n\n"

    class AiohttpResponse(_from("aiohttp", "ClientResponse")):  # type: ignore[misc]
        __module__ = "aiohttp.client_reqrep"
        content = Content()
        released = False

        def release(self) -> None:
            self.released = True

    async def read() -> tuple[list[bytes], bool]:
        response = AiohttpResponse()
        pieces = [piece async for piece in achunks(response)]
        await aclose_response(response)
        return pieces, response.released

    assert asyncio.run(read()) == ([b"data: 1\n\n"], True)

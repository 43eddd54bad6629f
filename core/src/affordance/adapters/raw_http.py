"""An SDK's raw HTTP response, whatever library made it: its bytes as they arrive, closing it,
and how its transport fails.

An SDK that streams through its own HTTP layer hands back the library's response unwrapped:
``httpx2`` (current SDKs) or ``httpx``, ``requests`` (Google auth on Vertex AI), ``aiohttp``
(an async transport some SDKs prefer when it is installed). Reading one raises the library's
own exceptions, never the SDK's. This module knows the four by their module names, so the
core imports none of them: which exceptions mean the transport failed, which of those are
worth another attempt (a timeout, a refused or reset connection, a body cut short), and how
to read and close each kind of response.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import importlib
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Any

__all__ = [
    "achunks",
    "aclose_response",
    "chunks",
    "header_value",
    "is_transient_transport_error",
    "is_transport_error",
    "response_transport_errors",
]

_HTTPX = ("httpx", "httpx2")
_AIOHTTP_TRANSIENT = frozenset(
    {
        "ClientConnectorError",
        "ClientOSError",
        "ServerDisconnectedError",
        "ServerTimeoutError",
        "ConnectionTimeoutError",
        "SocketTimeoutError",
    }
)


def _package(kind: type[Any]) -> str:
    return kind.__module__.split(".")[0]


@functools.cache
def _httpx_errors(module_name: str) -> tuple[type[BaseException], ...]:
    """``(TransportError, TimeoutException, NetworkError, RemoteProtocolError)`` of an httpx-like
    module: the base class and the subclasses worth retrying."""
    try:
        module = importlib.import_module(module_name)
    except ImportError:  # pragma: no cover - the SDK's transport is always importable
        return ()
    names = ("TransportError", "TimeoutException", "NetworkError", "RemoteProtocolError")
    found = tuple(getattr(module, name, None) for name in names)
    return tuple(kind for kind in found if isinstance(kind, type))


def response_transport_errors(response: object) -> tuple[type[BaseException], ...]:
    """The exceptions reading ``response`` raises when the transport fails: ``TransportError``
    of ``httpx2`` or ``httpx``, ``RequestException`` of ``requests``, ``ClientError`` of
    ``aiohttp`` and its timeouts."""
    package = _package(type(response))
    if package in _HTTPX:
        return _httpx_errors(package)[:1]
    if package == "requests":
        requests = importlib.import_module("requests")
        return (requests.RequestException,)
    if package == "aiohttp":
        aiohttp = importlib.import_module("aiohttp")
        return (aiohttp.ClientError, asyncio.TimeoutError, TimeoutError)
    return ()


def is_transient_transport_error(error: BaseException) -> bool:
    """Whether ``error`` is a transport failure worth another attempt: a timeout, a refused or
    reset connection, a body cut short."""
    package = _package(type(error))
    if package in _HTTPX:
        return isinstance(error, _httpx_errors(package)[1:])
    if package == "requests":
        exceptions = importlib.import_module("requests.exceptions")
        return isinstance(
            error, (exceptions.ConnectionError, exceptions.Timeout, exceptions.ChunkedEncodingError)
        )
    if package == "aiohttp":
        return type(error).__name__ in _AIOHTTP_TRANSIENT
    return isinstance(error, (TimeoutError, asyncio.TimeoutError, ConnectionError))


def is_transport_error(error: BaseException) -> bool:
    """Whether ``error`` comes from the HTTP layer (any of the four libraries, or the OS)."""
    if _package(type(error)) in (*_HTTPX, "aiohttp", "requests"):
        return True
    return isinstance(error, (OSError, TimeoutError))


def header_value(headers: Any, names: Iterable[str]) -> str | None:
    """The first non-empty value of the headers ``names`` (a request id, say), if any."""
    if headers is None:
        return None
    for name in names:
        value = headers.get(name)
        if isinstance(value, str) and value:
            return value
    return None


def chunks(response: Any) -> Iterator[bytes]:
    """The bytes of a streamed response as they arrive: ``httpx``/``httpx2``, or ``requests``."""
    if _package(type(response)) == "requests":
        return response.iter_content(chunk_size=None)  # type: ignore[no-any-return]
    return response.iter_bytes()  # type: ignore[no-any-return]


def achunks(response: Any) -> AsyncIterator[bytes]:
    """The bytes of an async streamed response: ``httpx``/``httpx2``, or ``aiohttp``."""
    if hasattr(response, "aiter_bytes"):
        return _httpx_chunks(response)
    return response.content.iter_any()  # type: ignore[no-any-return]


async def _httpx_chunks(response: Any) -> AsyncIterator[bytes]:
    """``response.aiter_bytes()``, finished here when the consumer leaves early: the response is
    closed, then its generators (``aiter_bytes`` wraps more) run to their end in this task.
    Merely closing the outer one would leave the inner ones to the event loop's finalizer,
    which closes them later in tasks of its own."""
    pieces = response.aiter_bytes()
    try:
        async for piece in pieces:
            yield piece
    finally:
        await response.aclose()
        with contextlib.suppress(Exception):
            async for _ in pieces:
                pass


async def aclose_response(response: Any) -> None:
    """Close an async response: ``aclose()`` (``httpx``), else ``release()`` (``aiohttp``)."""
    close = getattr(response, "aclose", None)
    if close is not None:
        await close()
    else:
        response.release()

"""A switch that makes real network use fail: only loopback connections are allowed.

Tests talk to loopback fake servers; anything else is a bug (or a leaked API key). Use
``with block_network(): ...`` or the ``no_network`` fixture of ``affordance.testing.pytest_plugin``.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["NetworkBlockedError", "block_network"]

_LOOPBACK_NAMES = {"localhost", "ip6-localhost", "ip6-loopback"}


class NetworkBlockedError(OSError):
    """A test tried to reach a host that is not on the loopback interface."""


def _is_loopback(address: Any) -> bool:
    if isinstance(address, (str, bytes)):  # AF_UNIX path
        return True
    host = address[0] if isinstance(address, tuple) and address else address
    if not isinstance(host, str):
        return False
    return host in _LOOPBACK_NAMES or host.startswith("127.") or host in ("::1", "0:0:0:0:0:0:0:1")


@contextmanager
def block_network() -> Iterator[None]:
    """Refuse every socket connection except to loopback addresses, inside the block."""
    original_connect = socket.socket.connect
    original_connect_ex = socket.socket.connect_ex
    original_getaddrinfo = socket.getaddrinfo

    def connect(self: socket.socket, address: Any) -> None:
        if not _is_loopback(address):
            raise NetworkBlockedError(f"network access to {address!r} is blocked in tests")
        original_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        if not _is_loopback(address):
            raise NetworkBlockedError(f"network access to {address!r} is blocked in tests")
        return original_connect_ex(self, address)

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host is not None and not _is_loopback(
            (host if isinstance(host, str) else host.decode(),)
        ):
            raise NetworkBlockedError(f"name lookup of {host!r} is blocked in tests")
        return original_getaddrinfo(host, *args, **kwargs)

    socket.socket.connect = connect  # type: ignore[method-assign,assignment]
    socket.socket.connect_ex = connect_ex  # type: ignore[method-assign,assignment]
    socket.getaddrinfo = getaddrinfo
    try:
        yield
    finally:
        socket.socket.connect = original_connect  # type: ignore[method-assign]
        socket.socket.connect_ex = original_connect_ex  # type: ignore[method-assign]
        socket.getaddrinfo = original_getaddrinfo

"""Serving the app on uvicorn, and draining it on SIGTERM.

uvicorn's own graceful shutdown does the draining: on SIGTERM it closes the listening socket (a
new connection is refused), closes idle connections, lets the requests in flight finish (their
connections close after their answer), and cancels what still runs after
``timeout_graceful_shutdown``. Two things are added here:

- the app hears that the shutdown began (:meth:`Shutdown.begin`), so that when its grace
  period ends it answers the chat requests still running itself — a ``503 shutting_down``, or a
  stream's final ``error`` event — instead of uvicorn cutting their connections; uvicorn's
  timeout stays, :data:`BACKSTOP` seconds later, for anything that still has not ended;
- having shut down, uvicorn raises the signal again for the handler it found: for SIGTERM that
  handler is :func:`_drained`, which does nothing, so a drained server exits 0 rather than
  being killed by the signal it already handled.
"""

from __future__ import annotations

import logging
import math
import signal
import socket
from types import FrameType

import uvicorn
from starlette.types import ASGIApp
from uvicorn.config import Config

from taskchat.shutdown import Shutdown

__all__ = ["BACKSTOP", "STARTUP_FAILURE", "serve"]

BACKSTOP = 2
"""Seconds after the grace period (rounded up) for the requests cut off to end, before uvicorn
cancels what still runs."""
STARTUP_FAILURE = 3  # what uvicorn.run exits with when the server could not start

logger = logging.getLogger("taskchat.shutdown")


class _DrainingServer(uvicorn.Server):
    def __init__(self, config: Config, app_shutdown: Shutdown) -> None:
        super().__init__(config)
        self._app_shutdown = app_shutdown

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        self._app_shutdown.begin()
        await super().shutdown(sockets)


def serve(
    app: ASGIApp,
    shutdown: Shutdown,
    *,
    host: str,
    port: int,
    log_level: str,
) -> int:
    """Serve until SIGTERM (or Ctrl+C), drain, and return the exit status: ``0``, or
    :data:`STARTUP_FAILURE` if the server could not start."""
    config = Config(
        app,
        host=host,
        port=port,
        log_level=log_level,
        timeout_graceful_shutdown=math.ceil(shutdown.grace) + BACKSTOP,
    )
    server = _DrainingServer(config, shutdown)
    previous = signal.signal(signal.SIGTERM, _drained)
    try:
        server.run()
    except KeyboardInterrupt:  # uvicorn raises SIGINT again once it has drained, as uvicorn.run
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
    if not server.started:
        return STARTUP_FAILURE
    if shutdown.cut_off_requests:
        logger.warning(
            "shut down: %d request(s) cut off at the end of the %g s grace",
            shutdown.cut_off_requests,
            shutdown.grace,
        )
    elif shutdown.begun:
        logger.info("shut down: every request in flight finished")
    return 0


def _drained(signum: int, frame: FrameType | None) -> None:
    """SIGTERM once uvicorn has drained the server: there is nothing left to do."""

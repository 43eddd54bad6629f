"""Request correlation: ``X-Request-ID`` in and out, and on every log record of the request.

The middleware takes the client's ``X-Request-ID`` (or makes one), keeps it in a context
variable for the request, and sends it back on the response. :class:`RequestIdLogFilter` copies
it onto log records as ``request_id``; installed on affordance's ``affordance.tools`` logger, it
ties the library's metadata-only tool-call records to the HTTP request (tool handlers run in
worker threads, and affordance copies the context into them, so the id follows).

The middleware is also the last line of defence: an exception nothing else handled becomes a
JSON 500 naming the request id, logged by type only (its message could hold user content).
"""

from __future__ import annotations

import contextvars
import json
import logging
import re
import uuid
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

__all__ = [
    "REQUEST_ID_HEADER",
    "RequestIdLogFilter",
    "RequestIdMiddleware",
    "current_request_id",
    "install_log_filter",
    "internal_error_body",
    "log_unhandled",
]

REQUEST_ID_HEADER = "x-request-id"
_VALID_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")
_request_id: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "taskchat_request_id", default=None
)
logger = logging.getLogger("taskchat.http")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def current_request_id() -> str | None:
    return _request_id.get()


def internal_error_body(request_id: str | None = None) -> dict[str, Any]:
    """The JSON body of an unexpected failure: it names the request id, nothing else."""
    request_id = request_id or current_request_id() or "-"
    return {
        "error": {
            "code": "internal_error",
            "message": f"unexpected server error (request id {request_id})",
        }
    }


def log_unhandled(error: BaseException, scope: Scope) -> None:
    """Log an unexpected failure by type only, without the traceback: its message could hold
    user content."""
    logger.error(
        "unhandled %s on %s %s",
        type(error).__name__,
        scope.get("method"),
        scope.get("path"),
        extra={"taskchat_error_type": type(error).__name__},
    )


class RequestIdLogFilter(logging.Filter):
    """Sets ``record.request_id`` (``"-"`` outside a request); never drops a record."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "request_id", None) is None:
            record.request_id = _request_id.get() or "-"
        return True


def install_log_filter(*logger_names: str) -> None:
    """Add the filter to these loggers (once each): their records then carry ``request_id``."""
    for name in logger_names:
        target = logging.getLogger(name)
        if not any(isinstance(f, RequestIdLogFilter) for f in target.filters):
            target.addFilter(RequestIdLogFilter())


class RequestIdMiddleware:
    """Pure ASGI (so a streaming response passes through untouched)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = _incoming_id(scope) or uuid.uuid4().hex
        token = _request_id.set(request_id)
        started = False

        async def send_with_id(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = [
                    (k, v) for k, v in message.get("headers", []) if k.lower() != b"x-request-id"
                ]
                headers.append((b"x-request-id", request_id.encode("ascii")))
                message["headers"] = headers
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        except Exception as error:
            log_unhandled(error, scope)
            if started:
                raise
            body = json.dumps(internal_error_body(request_id)).encode()
            await send_with_id(
                {
                    "type": "http.response.start",
                    "status": 500,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"content-length", str(len(body)).encode()),
                    ],
                }
            )
            await send_with_id({"type": "http.response.body", "body": body})
        finally:
            _request_id.reset(token)


def _incoming_id(scope: Scope) -> str | None:
    for name, value in scope.get("headers", []):
        if name.lower() == b"x-request-id":
            try:
                text = value.decode("ascii")
            except UnicodeDecodeError:
                return None
            return text if _VALID_ID.match(text) else None
    return None

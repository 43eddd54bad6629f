"""The HTTP side of the loopback server: the socket server, one thread per connection, and the
handler that reads a request, asks its owner (:class:`~.server.LoopbackServer`) for the reply
and sends it in its wire shape — a whole body, a chunked stream, a delay, a reset."""

from __future__ import annotations

import http.server
import json
import socket
import socketserver
import struct
import threading
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Protocol
from urllib.parse import parse_qsl, urlsplit

from affordance_testing.loopback.replies import (
    DelayedReply,
    JsonReply,
    RawReply,
    RecordedRequest,
    Reply,
    ResetReply,
    StreamReply,
    dumps,
)

__all__ = ["ConnectionOwner", "HttpServer"]

IDLE_CONNECTION_TIMEOUT_S = 30.0
"""How long a kept-alive connection may sit idle before its handler closes it."""

MAX_BODY_BYTES = 64 * 1024 * 1024
"""The largest request body read; a larger one is a test's mistake."""


class ConnectionOwner(Protocol):
    """What the handler threads ask of the server that owns them."""

    def _reply_for(self, request: RecordedRequest) -> Reply: ...
    def _record_failure(self, problem: str) -> None: ...
    def _handler_started(self, thread: threading.Thread) -> None: ...
    def _handler_ended(self, thread: threading.Thread) -> None: ...
    def _connection_opened(self, connection: socket.socket) -> int: ...
    def _connection_closed(self, connection: socket.socket) -> None: ...
    def _wait(self, seconds: float, connection: socket.socket) -> bool: ...


class HttpServer(http.server.ThreadingHTTPServer):
    """Tracks its handler threads so its owner's ``stop`` can join them with a bound."""

    daemon_threads = True
    block_on_close = False
    request_queue_size = 1024  # many clients connect at once; a short backlog drops SYNs

    def __init__(self, owner: ConnectionOwner) -> None:
        self.owner = owner
        super().__init__(("127.0.0.1", 0), _Handler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind resolves a host name, which can stall without a network.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = "127.0.0.1", int(self.server_address[1])

    def process_request(self, request: Any, client_address: Any) -> None:
        thread = threading.Thread(
            target=self._serve_connection,
            args=(request, client_address),
            name=f"loopback-{self.server_port}-conn",
            daemon=True,
        )
        self.owner._handler_started(thread)
        thread.start()

    def _serve_connection(self, request: Any, client_address: Any) -> None:
        try:
            self.finish_request(request, client_address)
        except ConnectionError:
            pass  # the client went away mid-request; nothing is left to answer
        except Exception as exc:  # noqa: BLE001 - recorded as a failure the test reads
            self.owner._record_failure(f"handler crashed: {exc!r}")
        finally:
            self.shutdown_request(request)
            self.owner._handler_ended(threading.current_thread())


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "loopback"
    sys_version = ""
    timeout = IDLE_CONNECTION_TIMEOUT_S
    disable_nagle_algorithm = True  # else headers and body in two writes cost a delayed ACK

    @property
    def _owner(self) -> ConnectionOwner:
        assert isinstance(self.server, HttpServer)
        return self.server.owner

    def setup(self) -> None:
        super().setup()
        self._connection_id = self._owner._connection_opened(self.connection)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self._owner._connection_closed(self.connection)

    def log_message(self, format: str, *args: Any) -> None:
        """Silent: the server records requests instead of logging them."""

    def _dispatch(self) -> None:
        raw_body = self._read_body()
        split = urlsplit(self.path)
        headers: dict[str, str] = {}
        for name, value in self.headers.items():
            key = name.lower()
            headers[key] = f"{headers[key]}, {value}" if key in headers else value
        try:
            body = json.loads(raw_body) if raw_body else None
        except ValueError:
            body = None
        request = RecordedRequest(
            method=self.command.upper(),
            path=split.path,
            query=MappingProxyType(dict(parse_qsl(split.query, keep_blank_values=True))),
            headers=MappingProxyType(headers),
            body=body,
            raw_body=raw_body,
            connection_id=self._connection_id,
        )
        reply = self._owner._reply_for(request)
        try:
            self._send(reply)
        except ConnectionError:
            self.close_connection = True  # the client hung up first; nothing to tell it

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _dispatch  # noqa: N815 (stdlib's names)

    def _read_body(self) -> bytes:
        if "chunked" in self.headers.get("transfer-encoding", "").lower():
            chunks = []
            while size := int(self.rfile.readline().split(b";")[0], 16):
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                pass  # trailers
            return b"".join(chunks)
        length = int(self.headers.get("content-length") or 0)
        if length > MAX_BODY_BYTES:
            raise ValueError(f"request body of {length} bytes exceeds {MAX_BODY_BYTES}")
        return self.rfile.read(length) if length else b""

    def _send(self, reply: Reply) -> None:
        if isinstance(reply, DelayedReply):
            if self._owner._wait(reply.seconds, self.connection):
                self._send(reply.then)
            else:
                self.close_connection = True
        elif isinstance(reply, JsonReply):
            body = dumps(reply.body).encode()
            self._send_whole(reply.status, body, "application/json", reply.headers)
        elif isinstance(reply, RawReply):
            self._send_whole(
                reply.status, reply.body, reply.content_type, reply.headers, reply.cut_after_bytes
            )
        elif isinstance(reply, ResetReply):
            self._drop_connection(abortive=reply.abortive)
        else:
            self._send_stream(reply)

    def _send_whole(
        self,
        status: int,
        body: bytes,
        content_type: str,
        headers: Mapping[str, str],
        cut_after_bytes: int | None = None,
    ) -> None:
        self.send_response(status)
        all_headers = {"content-type": content_type, **headers, "content-length": str(len(body))}
        for name, value in all_headers.items():
            self.send_header(name, value)
        self.end_headers()
        if cut_after_bytes is None:
            self.wfile.write(body)
            return
        self.wfile.write(body[:cut_after_bytes])
        self.wfile.flush()
        self._drop_connection(abortive=True)

    def _send_stream(self, reply: StreamReply) -> None:
        self.send_response(reply.status)
        base = {"content-type": reply.content_type, "cache-control": "no-cache"}
        for name, value in {**base, **reply.headers, "transfer-encoding": "chunked"}.items():
            self.send_header(name, value)
        self.end_headers()
        frames = reply.frames()
        sent = frames if reply.cut_after is None else frames[: reply.cut_after]
        for index, frame in enumerate(sent):
            if index and not self._owner._wait(reply.interval_s, self.connection):
                self.close_connection = True
                return
            self._write_chunk(frame)
        if reply.cut_after is None:
            self.wfile.write(b"0\r\n\r\n")
            return
        if reply.cut_mid_event:
            partial = frames[reply.cut_after]
            self._write_chunk(partial[: max(1, len(partial) // 2)])
        if reply.cut_abortive:
            self._drop_connection(abortive=True)
        else:
            # The body ends as a complete HTTP response, so the connection stays open: closing it
            # unannounced races the client's next request on the same pooled connection.
            self.wfile.write(b"0\r\n\r\n")

    def _write_chunk(self, chunk: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        self.wfile.flush()

    def _drop_connection(self, *, abortive: bool) -> None:
        self.close_connection = True
        if abortive:  # a zero linger time makes close() send RST instead of FIN
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.rfile.close()  # the makefile() reader holds a reference that defers the close
        self.connection.close()

"""``LoopbackServer``: a provider-neutral HTTP/1.1 server on 127.0.0.1 that answers real clients
from a script, in the wire shapes of :mod:`.replies`, and records every request.

Tests point a client's base URL at it, script replies and faults per route (method and path),
and read back what was sent: method, path, query, headers, the raw body and, when it is JSON,
the parsed one. It runs on threads (one serving, one per connection), so a synchronous test
drives it directly; leaving its ``with`` block stops every thread and closes every socket.
"""

from __future__ import annotations

import contextlib
import selectors
import socket
import threading
import time
from collections import deque
from types import TracebackType
from typing import TypeAlias

from affordance_testing.loopback._http import HttpServer
from affordance_testing.loopback.faults import error_body
from affordance_testing.loopback.replies import (
    REPLY_TYPES,
    JsonReply,
    RecordedRequest,
    Reply,
    Responder,
    ScriptEntry,
)

__all__ = ["LoopbackServer"]

STOP_JOIN_TIMEOUT_S = 5.0
"""How long ``stop`` waits for the handler threads to end before calling them leaked."""

_Route: TypeAlias = tuple[str, str]


class LoopbackServer:
    """A threaded HTTP/1.1 server on an ephemeral 127.0.0.1 port, answering from a script.

    Each request is answered by the next scripted entry of its route (method and path), else the
    route's responder, else the default responder, else a 500 that names the route and is recorded
    as unanswered. Use as a context manager; leaving it stops every thread and closes every socket.
    """

    def __init__(self, *, default: Responder | None = None, base_path: str = "") -> None:
        if base_path and (not base_path.startswith("/") or base_path.endswith("/")):
            raise ValueError(f"base_path must start and not end with '/', got {base_path!r}")
        self._base_path = base_path
        self._default = default
        self._lock = threading.Condition()
        self._scripts: dict[_Route, deque[ScriptEntry]] = {}
        self._responders: dict[_Route, Responder] = {}
        self._requests: list[RecordedRequest] = []
        self._failures: list[str] = []
        self._connections: set[socket.socket] = set()
        self._handler_threads: set[threading.Thread] = set()  # serving a connection now
        self._threads_to_join: list[threading.Thread] = []
        self._connection_count = 0
        self._stopping = threading.Event()
        self._httpd: HttpServer | None = None
        self._port: int | None = None
        self._serve_thread: threading.Thread | None = None
        self._wake_reader: socket.socket | None = None
        self._wake_writer: socket.socket | None = None
        self._used = False

    # Lifecycle

    def start(self) -> LoopbackServer:
        if self._used:
            raise RuntimeError("a LoopbackServer can be started only once")
        self._used = True
        self._wake_reader, self._wake_writer = socket.socketpair()
        self._httpd = HttpServer(self)
        self._port = int(self._httpd.server_address[1])
        self._serve_thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.01},
            name=f"loopback-{self.port}-serve",
            daemon=True,
        )
        self._serve_thread.start()
        return self

    def stop(self) -> None:
        """Stop accepting, interrupt waits, close open connections and join every thread."""
        httpd, serve_thread = self._httpd, self._serve_thread
        if httpd is None or serve_thread is None:
            return
        assert self._wake_reader is not None
        assert self._wake_writer is not None
        with self._lock:
            self._stopping.set()
            connections = list(self._connections)
        self._wake_writer.send(b"x")  # never read: wakes every select() on the reader for good
        httpd.shutdown()
        serve_thread.join()
        for connection in connections:
            with contextlib.suppress(OSError):  # already closed by its handler
                connection.shutdown(socket.SHUT_RDWR)
        httpd.server_close()
        deadline = time.monotonic() + STOP_JOIN_TIMEOUT_S
        with self._lock:
            threads = list(self._threads_to_join)
        for thread in threads:
            thread.join(timeout=max(0.0, deadline - time.monotonic()))
        self._httpd = None
        leaked = sorted(thread.name for thread in threads if thread.is_alive())
        if leaked:
            raise RuntimeError(f"loopback: handler threads still running after stop: {leaked}")
        self._wake_reader.close()
        self._wake_writer.close()

    def __enter__(self) -> LoopbackServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    # Addresses

    @property
    def port(self) -> int:
        if self._port is None:
            raise RuntimeError("the server has not been started")
        return self._port

    @property
    def origin(self) -> str:
        """``http://127.0.0.1:PORT``, without the base path."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        """The origin plus the base path: what an SDK's ``base_url`` should be."""
        return self.origin + self._base_path

    # Scripting

    def script(self, path: str, *entries: ScriptEntry, method: str = "POST") -> None:
        """Append replies (or one-shot responders) to the FIFO of ``method path``."""
        for entry in entries:
            if not isinstance(entry, REPLY_TYPES) and not callable(entry):
                raise TypeError(f"script entries are replies or responders, got {entry!r}")
        with self._lock:
            self._scripts.setdefault((method.upper(), path), deque()).extend(entries)

    def set_responder(
        self, responder: Responder | None, *, path: str | None = None, method: str = "POST"
    ) -> None:
        """Answer ``method path`` (or, with no path, any route) once its script is exhausted."""
        with self._lock:
            if path is None:
                self._default = responder
            elif responder is None:
                self._responders.pop((method.upper(), path), None)
            else:
                self._responders[(method.upper(), path)] = responder

    # Inspection

    @property
    def requests(self) -> tuple[RecordedRequest, ...]:
        with self._lock:
            return tuple(self._requests)

    def requests_to(self, path: str, *, method: str = "POST") -> tuple[RecordedRequest, ...]:
        return tuple(r for r in self.requests if r.path == path and r.method == method.upper())

    @property
    def failures(self) -> tuple[str, ...]:
        """Requests that no script or responder answered, and responders that raised."""
        with self._lock:
            return tuple(self._failures)

    def pending(self) -> dict[str, int]:
        """Scripted entries not yet used, counted per ``"METHOD /path"``."""
        with self._lock:
            return {f"{m} {p}": len(queue) for (m, p), queue in self._scripts.items() if queue}

    def assert_script_consumed(self) -> None:
        """Fail unless every scripted entry was used and every request was answered."""
        pending = self.pending()
        problems = [f"unused scripted replies {pending}"] if pending else []
        problems.extend(self.failures)
        if problems:
            raise AssertionError("loopback: " + "; ".join(problems))

    def wait_idle(self, timeout_s: float = 1.0) -> bool:
        """Wait until no connection is open (every handler thread has ended)."""
        with self._lock:
            return self._lock.wait_for(lambda: not self._handler_threads, timeout=timeout_s)

    # Used by the handler threads

    def _reply_for(self, request: RecordedRequest) -> Reply:
        route = (request.method, request.path)
        with self._lock:
            self._requests.append(request)
            queue = self._scripts.get(route)
            entry = queue.popleft() if queue else self._responders.get(route, self._default)
        if entry is None:
            return self._fail(f"no scripted reply for {request.method} {request.path}")
        if isinstance(entry, REPLY_TYPES):
            return entry
        try:
            reply: object = entry(request)  # typed, but test code can still get it wrong
        except Exception as exc:  # noqa: BLE001 - a responder is test code: report it, keep serving
            return self._fail(f"responder for {request.method} {request.path} raised {exc!r}")
        if not isinstance(reply, REPLY_TYPES):
            return self._fail(f"responder for {request.method} {request.path} returned {reply!r}")
        return reply

    def _record_failure(self, problem: str) -> None:
        with self._lock:
            self._failures.append(problem)

    def _fail(self, problem: str) -> JsonReply:
        self._record_failure(problem)
        body = error_body(f"loopback: {problem}", "loopback_unanswered", "loopback_unanswered")
        # Telling the SDK not to retry keeps a scripting mistake to a single, fast failure.
        return JsonReply(body, status=500, headers={"x-should-retry": "false"})

    def _handler_started(self, thread: threading.Thread) -> None:
        with self._lock:
            self._handler_threads.add(thread)
            self._threads_to_join.append(thread)

    def _handler_ended(self, thread: threading.Thread) -> None:
        with self._lock:
            self._handler_threads.discard(thread)
            self._lock.notify_all()

    def _connection_opened(self, connection: socket.socket) -> int:
        with self._lock:
            self._connection_count += 1
            self._connections.add(connection)
            if self._stopping.is_set():  # accepted just as stop() took its snapshot
                with contextlib.suppress(OSError):
                    connection.shutdown(socket.SHUT_RDWR)
            return self._connection_count

    def _connection_closed(self, connection: socket.socket) -> None:
        with self._lock:
            self._connections.discard(connection)

    def _wait(self, seconds: float, connection: socket.socket) -> bool:
        """Sleep up to ``seconds``; ``False`` if the client hung up or the server is stopping."""
        assert self._wake_reader is not None
        deadline = time.monotonic() + seconds
        # A selector, not select(): descriptors above 1023 are common under heavy concurrency.
        with selectors.DefaultSelector() as selector:
            selector.register(self._wake_reader, selectors.EVENT_READ)
            selector.register(connection, selectors.EVENT_READ)
            while (remaining := deadline - time.monotonic()) > 0:
                ready = {key.fileobj for key, _ in selector.select(remaining)}
                if self._wake_reader in ready:
                    return False
                if connection in ready:
                    try:
                        if not connection.recv(1, socket.MSG_PEEK):
                            return False  # the client closed its end
                    except OSError:
                        return False
                    selector.unregister(connection)  # early bytes of a next request
        return not self._stopping.is_set()

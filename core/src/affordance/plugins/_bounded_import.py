"""Importing an entry point within a time limit, on a daemon thread the caller waits for. Python
cannot stop a thread: an import running at the limit is abandoned, holding its module's import
lock, so that module is not imported again while it runs. The worker hands back whatever the
import raised, ``KeyboardInterrupt`` included (``specs/PLUGINS.md``, "A hung import")."""

from __future__ import annotations

import importlib.metadata
import sys
import threading
import time
from types import FrameType

__all__ = ["ImportTimeoutError", "import_within", "on_import_thread"]


class ImportTimeoutError(Exception):
    """An entry point did not import within the limit; ``str()`` is the plugin's reason."""


class _Import:
    """One entry point's import, on a daemon thread of its own."""

    __slots__ = ("done", "entry_point", "error", "module", "started", "value")

    def __init__(self, entry_point: importlib.metadata.EntryPoint) -> None:
        self.entry_point = entry_point
        self.module = entry_point.module
        self.started = time.monotonic()
        self.done = threading.Event()
        self.value: object = None
        self.error: BaseException | None = None

    def start(self) -> None:
        name = f"affordance-plugin-import:{self.entry_point.name}"
        threading.Thread(target=self._run, name=name, daemon=True).start()

    def _run(self) -> None:
        _thread.importing = True
        try:
            self.value = self.entry_point.load()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller, which decides
            self.error = exc
        finally:
            with _running_lock:
                if _running.get(self.module) is self:
                    del _running[self.module]
            self.done.set()

    def wait(self, limit: float) -> bool:
        """Whether the import ended within ``limit`` seconds of its start."""
        left = self.started + limit - time.monotonic()
        return self.done.wait(min(max(left, 0.0), threading.TIMEOUT_MAX))


_running: dict[str, _Import] = {}
"""Module name -> its import, while that import runs (abandoned ones included)."""
_running_lock = threading.Lock()
_thread = threading.local()


def on_import_thread() -> bool:
    """Whether this thread is importing an entry point for :func:`import_within`."""
    return getattr(_thread, "importing", False)


def _importing_here(module: str) -> bool:
    """Whether this thread is running the top-level code of ``module`` (a plugin module that
    builds the registry as it is imported): a worker would wait for this thread's import."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_name == "<module>" and frame.f_globals.get("__name__") == module:
            return True
        frame = frame.f_back
    return False


def import_within(entry_point: importlib.metadata.EntryPoint, limit: float) -> object:
    """``entry_point.load()`` given at most ``limit`` seconds; raises what the import raised
    (on this thread), or :class:`ImportTimeoutError` if it has not finished by then."""
    if _importing_here(entry_point.module):
        return entry_point.load()  # this thread holds the import lock a worker would wait for
    while True:
        with _running_lock:
            running = _running.get(entry_point.module)
            if running is None:
                job = _Import(entry_point)
                _running[job.module] = job
        if running is None:
            break
        if not running.wait(limit):
            raise ImportTimeoutError(
                f"import timed out after {limit:g}s (an import of {entry_point.module} started "
                "earlier in this process is still running; it is not started again)"
            )
    try:
        job.start()
    except BaseException:
        with _running_lock:
            del _running[job.module]
        raise
    if not job.wait(limit):
        raise ImportTimeoutError(f"import timed out after {limit:g}s")
    if job.error is not None:
        raise job.error
    return job.value

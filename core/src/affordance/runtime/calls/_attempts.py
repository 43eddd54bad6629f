"""``Attempts``: the decisions of one tool call's retry loop — each attempt's timeout (the
tool's, the executor's default, never past the deadline), whether a failure is tried again and
after how long, and the outcome. ``ToolExecutor.run`` and ``arun`` share it and differ only in
how they wait and call the handler. It reads the executor's settings through
:class:`AttemptSettings`, so this module does not import the executor that imports it. A
``watched`` call also publishes its handler events (``_handler_events``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from affordance.clock import Clock
from affordance.errors import ToolError, ToolValidationError
from affordance.runtime.calls import failures
from affordance.runtime.calls._calllog import log_overrun
from affordance.runtime.calls._guard import HandlerEscape
from affordance.runtime.calls._handler_events import publish_attempt_failed, publish_started
from affordance.runtime.calls._offthread import HandlerTimeoutError
from affordance.runtime.calls.context import ToolContext
from affordance.runtime.calls.prepared import CallOutcome, PreparedCall
from affordance.tools.result import ToolResult
from affordance.tools.retry import RetryPolicy
from affordance.tools.tool import Tool

__all__ = ["AttemptSettings", "Attempts"]


class AttemptSettings(Protocol):
    """The executor's settings the retry loop reads (a ``ToolExecutor`` has them)."""

    @property
    def clock(self) -> Clock: ...

    @property
    def default_timeout(self) -> float | None: ...

    @property
    def retry(self) -> RetryPolicy: ...

    @property
    def random_unit(self) -> Callable[[], float]: ...


class Attempts:
    """The retry loop's decisions for one call, shared by ``ToolExecutor.run`` and
    ``ToolExecutor.arun`` (which differ only in how they wait)."""

    __slots__ = (
        "attempt",
        "attempt_started",
        "context",
        "executor",
        "prepared",
        "started",
        "tool",
        "watched",
    )

    def __init__(
        self,
        executor: AttemptSettings,
        prepared: PreparedCall,
        context: ToolContext,
        watched: bool = False,
    ) -> None:
        tool = prepared.tool
        assert tool is not None
        assert tool.handler is not None
        self.executor = executor
        self.prepared = prepared
        self.context = context
        self.tool: Tool[Any, Any] = tool
        self.started = executor.clock.monotonic()
        self.attempt = 0  # begin() starts each attempt, and sets attempt_started
        self.watched = watched
        if watched:
            publish_started(prepared, context)

    def begin(self) -> float | CallOutcome | None:
        """Start an attempt: its timeout, or the outcome if the deadline has already passed."""
        self.attempt += 1
        self.attempt_started = self.executor.clock.monotonic()
        tool = self.tool
        timeout = tool.timeout if tool.timeout is not None else self.executor.default_timeout
        deadline = self.context.deadline
        if deadline is not None:
            remaining = deadline.remaining()
            if remaining <= 0:
                return self._outcome(failures.deadline_passed(tool.name))
            timeout = remaining if timeout is None else min(timeout, remaining)
        return timeout

    def check_in_time(self, timeout: float | None) -> None:
        """Raise :class:`HandlerTimeoutError` if an async handler returned past its timeout.

        ``asyncio.wait_for`` cannot interrupt a handler that blocks the event loop (a
        ``time.sleep`` inside ``async def``): it returns late with a result. The executor's
        clock decides instead, and the overrun is logged (metadata only).
        """
        if timeout is None or not self.tool.is_async:
            return
        elapsed = self.executor.clock.monotonic() - self.attempt_started
        if elapsed <= timeout:
            return
        context = self.context
        log_overrun(
            run_id=context.run_id,
            turn=context.turn,
            call_id=context.call_id,
            tool=self.tool.name,
            handler=_handler_name(self.tool),
            elapsed=elapsed,
            timeout=timeout,
        )
        raise HandlerTimeoutError

    def succeeded(self, value: object) -> CallOutcome:
        """The handler's result, once it is known to render: the loop renders it for the model
        and for ``ToolInvoked``, and a value with no text form must not crash the run there."""
        if isinstance(value, ToolResult):
            result: ToolResult[Any] = value
        else:
            result = failures.bad_return(self.tool.name, value)
        try:
            rendered = result.render()
        except Exception as error:  # noqa: BLE001 - dump refusing the value, or its render()
            failure = failures.unrenderable(self.tool.name, error)
            return self._outcome(failure, "unrenderable_result")
        return self._outcome(result, rendered=rendered)

    def failed(self, error: Exception, timeout: float | None) -> float | CallOutcome:
        """The seconds to wait before trying again, or the final outcome."""
        name = self.tool.name
        retry = self.tool.retry or self.executor.retry
        result: ToolResult[Any]
        if isinstance(error, HandlerEscape):  # a BaseException the handler let out
            result = failures.handler_raised(name, error.error)
            code, again = type(error.error).__name__, False
        elif isinstance(error, HandlerTimeoutError):
            result, code, again = failures.timed_out(name, timeout or 0), "timeout", False
            again = retry.retry_timeouts
        elif isinstance(error, ToolError):
            result, code, again = failures.tool_error(error), error.code, error.retryable
        elif isinstance(error, ToolValidationError):
            result = failures.invalid_arguments(name, error.message)
            code, again = "invalid_arguments", False
        else:
            result, code, again = failures.handler_raised(name, error), type(error).__name__, False
        step: float | CallOutcome
        if not again or self.attempt >= retry.max_attempts:
            step = self._outcome(result, code)
        else:
            step = retry.delay(self.attempt, self.executor.random_unit())
            deadline = self.context.deadline
            if deadline is not None and deadline.remaining() <= step:
                step = self._outcome(result, code)
        if self.watched:
            retrying = not isinstance(step, CallOutcome)
            publish_attempt_failed(self.prepared, self.context, self.attempt, code, retrying)
        return step

    def _outcome(
        self,
        result: ToolResult[Any],
        error_code: str | None = None,
        *,
        rendered: str | None = None,
    ) -> CallOutcome:
        duration = self.executor.clock.monotonic() - self.started
        return CallOutcome(self.prepared, result, duration, self.attempt, error_code, rendered)


def _handler_name(tool: Tool[Any, Any]) -> str:
    handler = tool.handler
    name = getattr(handler, "__qualname__", None) or type(handler).__qualname__
    module = getattr(handler, "__module__", None)
    return f"{module}.{name}" if module else name

"""``ToolExecutor``: turns one model tool call into exactly one ``ToolResult``, never raising.

The work is split so the sync and async drivers share every decision:
:meth:`ToolExecutor.prepare` (lookup, policy, argument parsing and validation, confirmation
gate, cache lookup) is pure; :meth:`ToolExecutor.run` / :meth:`ToolExecutor.arun` call the
handler with timeout and retries; :meth:`ToolExecutor.finish` caches, logs and builds the event.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import random
import threading
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from affordance.clock import SYSTEM_CLOCK, Clock
from affordance.errors import ToolError, ToolValidationError
from affordance.runtime import failures
from affordance.runtime._calllog import log_call
from affordance.runtime.cache import ResultCache, cache_key
from affordance.runtime.messages import ToolCall
from affordance.runtime.policy import ToolPolicy
from affordance.serde import ParseError, dump, parse
from affordance.tools.context import ToolContext
from affordance.tools.result import ToolResult
from affordance.tools.retry import RetryPolicy
from affordance.tools.tool import Tool

__all__ = ["CallOutcome", "PreparedCall", "ToolExecutor"]

NoneType = type(None)


@dataclass(frozen=True, slots=True)
class PreparedCall:
    """A call after lookup and validation. ``result`` is set when it need not (or may not) run."""

    call: ToolCall
    tool: Tool[Any, Any] | None
    arguments: object = None
    params: Any = None
    result: ToolResult[Any] | None = None
    needs_confirmation: bool = False
    cache_key: str | None = None
    cached: bool = False
    denial: str | None = None


@dataclass(frozen=True, slots=True)
class CallOutcome:
    """What running a prepared call produced."""

    prepared: PreparedCall
    result: ToolResult[Any]
    duration: float = 0.0
    attempts: int = 0
    error_code: str | None = None


class _HandlerTimeoutError(Exception):
    pass


class ToolExecutor:
    """Validation, policy, confirmation, caching, timeouts and retries for tool calls.

    ``default_timeout`` applies to tools without their own; ``retry`` to tools without their own
    retry policy. ``clock`` and ``random`` are injectable so tests control time and jitter.
    """

    def __init__(
        self,
        *,
        policy: ToolPolicy | None = None,
        default_timeout: float | None = None,
        retry: RetryPolicy | None = None,
        cache: ResultCache | None = None,
        clock: Clock = SYSTEM_CLOCK,
        random_unit: Callable[[], float] = random.random,
        log_content: bool = False,
    ) -> None:
        self.policy = policy
        self.default_timeout = default_timeout
        self.retry = retry if retry is not None else RetryPolicy()
        self.cache = cache if cache is not None else ResultCache()
        self.clock = clock
        self.random_unit = random_unit
        self.log_content = log_content

    # -- deciding ----------------------------------------------------------------------------

    def prepare(
        self, call: ToolCall, tools: Mapping[str, Tool[Any, Any]], *, confirmed: bool = False
    ) -> PreparedCall:
        tool = tools.get(call.name)
        if tool is None:
            return PreparedCall(call, None, result=failures.unknown_tool(call.name, tools))
        if self.policy is not None:
            decision = self.policy.check(tool)
            if not decision.allowed:
                denied = failures.denied(tool.name, decision.reason)
                return PreparedCall(call, tool, result=denied, denial=decision.reason)
        arguments = call.arguments
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments) if arguments.strip() else {}
            except ValueError as error:
                return PreparedCall(call, tool, result=failures.invalid_json(tool.name, str(error)))
        if not isinstance(arguments, Mapping):
            return PreparedCall(
                call, tool, arguments, result=failures.not_an_object(tool.name, arguments)
            )
        params_type = tool.params_type
        try:
            params = parse(params_type, dict(arguments)) if params_type is not NoneType else None
        except ParseError as error:
            detail = str(error)
            return PreparedCall(
                call, tool, arguments, result=failures.invalid_arguments(tool.name, detail)
            )
        if params_type is NoneType and arguments:
            detail = f"it takes no arguments, got {', '.join(map(str, arguments))}"
            return PreparedCall(
                call, tool, arguments, result=failures.invalid_arguments(tool.name, detail)
            )
        if tool.handler is None:
            return PreparedCall(
                call, tool, arguments, params, result=failures.no_handler(tool.name)
            )
        if tool.destructive and not confirmed:
            return PreparedCall(call, tool, arguments, params, needs_confirmation=True)
        if tool.cache_ttl is not None:
            key = cache_key(tool.name, params)
            hit = self.cache.get(key, self.clock.monotonic())
            if hit is not None:
                return PreparedCall(call, tool, arguments, params, hit, cache_key=key, cached=True)
            return PreparedCall(call, tool, arguments, params, cache_key=key)
        return PreparedCall(call, tool, arguments, params)

    # -- running -----------------------------------------------------------------------------

    def run(self, prepared: PreparedCall, context: ToolContext) -> CallOutcome:
        """Run a prepared call in this thread (a sync handler with a timeout gets a thread)."""
        if prepared.result is not None:
            return CallOutcome(prepared, prepared.result)
        tool = prepared.tool
        assert tool is not None
        assert tool.handler is not None
        started = self.clock.monotonic()
        attempt = 0
        retry = tool.retry or self.retry
        result: ToolResult[Any]
        while True:
            attempt += 1
            timeout = self._timeout(tool, context)
            if timeout is not None and timeout <= 0:
                return self._outcome(
                    prepared, failures.deadline_passed(tool.name), started, attempt
                )
            try:
                value = self._call_sync(tool, prepared.params, context, timeout)
            except _HandlerTimeoutError:
                result, code, again = (
                    failures.timed_out(tool.name, timeout or 0),
                    "timeout",
                    retry.retry_timeouts,
                )
            except ToolError as error:
                result, code, again = failures.tool_error(error), error.code, error.retryable
            except ToolValidationError as error:
                result, code, again = (
                    failures.invalid_arguments(tool.name, error.message),
                    "invalid_arguments",
                    False,
                )
            except Exception as error:  # noqa: BLE001 - every handler failure becomes a result
                result, code, again = (
                    failures.handler_raised(tool.name, error),
                    type(error).__name__,
                    False,
                )
            else:
                return self._outcome(prepared, _checked(tool.name, value), started, attempt)
            if not again or attempt >= retry.max_attempts:
                return self._outcome(prepared, result, started, attempt, code)
            delay = retry.delay(attempt, self.random_unit())
            if not self._time_left_for(delay, context):
                return self._outcome(prepared, result, started, attempt, code)
            self.clock.sleep(delay)

    async def arun(self, prepared: PreparedCall, context: ToolContext) -> CallOutcome:
        """Run a prepared call on the event loop; sync handlers run in a worker thread."""
        import asyncio

        if prepared.result is not None:
            return CallOutcome(prepared, prepared.result)
        tool = prepared.tool
        assert tool is not None
        assert tool.handler is not None
        started = self.clock.monotonic()
        attempt = 0
        retry = tool.retry or self.retry
        result: ToolResult[Any]
        while True:
            attempt += 1
            timeout = self._timeout(tool, context)
            if timeout is not None and timeout <= 0:
                return self._outcome(
                    prepared, failures.deadline_passed(tool.name), started, attempt
                )
            try:
                value = await self._call_async(tool, prepared.params, context, timeout)
            except (TimeoutError, asyncio.TimeoutError):
                result, code, again = (
                    failures.timed_out(tool.name, timeout or 0),
                    "timeout",
                    retry.retry_timeouts,
                )
            except ToolError as error:
                result, code, again = failures.tool_error(error), error.code, error.retryable
            except ToolValidationError as error:
                result, code, again = (
                    failures.invalid_arguments(tool.name, error.message),
                    "invalid_arguments",
                    False,
                )
            except Exception as error:  # noqa: BLE001 - every handler failure becomes a result
                result, code, again = (
                    failures.handler_raised(tool.name, error),
                    type(error).__name__,
                    False,
                )
            else:
                return self._outcome(prepared, _checked(tool.name, value), started, attempt)
            if not again or attempt >= retry.max_attempts:
                return self._outcome(prepared, result, started, attempt, code)
            delay = retry.delay(attempt, self.random_unit())
            if not self._time_left_for(delay, context):
                return self._outcome(prepared, result, started, attempt, code)
            await self.clock.asleep(delay)

    def finish(self, outcome: CallOutcome, *, run_id: str, turn: int) -> None:
        """Store a fresh success in the cache and log the call (metadata only)."""
        prepared = outcome.prepared
        tool = prepared.tool
        result = outcome.result
        if (
            result.success
            and prepared.cache_key is not None
            and not prepared.cached
            and tool is not None
            and tool.cache_ttl is not None
        ):
            self.cache.put(prepared.cache_key, result, self.clock.monotonic() + tool.cache_ttl)
        content = None
        if self.log_content:
            content = {"arguments": _json_text(prepared.arguments), "result": result.model_text()}
        log_call(
            run_id=run_id,
            turn=turn,
            call_id=prepared.call.id,
            tool=prepared.call.name,
            arguments=prepared.arguments,
            outcome="success" if result.success else "failure",
            duration=outcome.duration,
            attempts=outcome.attempts,
            error_code=outcome.error_code if not result.success else None,
            cached=prepared.cached,
            content=content,
        )

    # -- internals ---------------------------------------------------------------------------

    def _timeout(self, tool: Tool[Any, Any], context: ToolContext) -> float | None:
        timeout = tool.timeout if tool.timeout is not None else self.default_timeout
        deadline = context.deadline
        if deadline is not None:
            remaining = deadline.remaining()
            timeout = remaining if timeout is None else min(timeout, remaining)
        return timeout

    def _time_left_for(self, delay: float, context: ToolContext) -> bool:
        deadline = context.deadline
        return deadline is None or deadline.remaining() > delay

    def _outcome(
        self,
        prepared: PreparedCall,
        result: ToolResult[Any],
        started: float,
        attempts: int,
        error_code: str | None = None,
    ) -> CallOutcome:
        duration = self.clock.monotonic() - started
        return CallOutcome(prepared, result, duration, attempts, error_code)

    def _call_sync(
        self, tool: Tool[Any, Any], params: Any, context: ToolContext, timeout: float | None
    ) -> object:
        handler = tool.handler
        assert handler is not None
        if tool.is_async:
            return _run_coroutine(_invoke(tool, params, context), timeout)
        if timeout is None:
            return _invoke(tool, params, context)
        return _run_in_thread(lambda: _invoke(tool, params, context), timeout, tool.name)

    async def _call_async(
        self, tool: Tool[Any, Any], params: Any, context: ToolContext, timeout: float | None
    ) -> object:
        import asyncio

        if tool.is_async:
            awaitable: Awaitable[object] = _invoke(tool, params, context)
        elif timeout is None:
            awaitable = asyncio.to_thread(_invoke, tool, params, context)
        else:
            # A daemon thread, not the loop's pool: an overrunning handler must not hold up
            # the pool or the loop's shutdown.
            awaitable = _in_daemon_thread(lambda: _invoke(tool, params, context), tool.name)
        if timeout is None:
            return await awaitable
        return await asyncio.wait_for(awaitable, timeout)


def _invoke(tool: Tool[Any, Any], params: Any, context: ToolContext) -> Any:
    handler = tool.handler
    assert handler is not None
    if tool.takes_context:
        return handler(params, context=context)
    return handler(params)


def _checked(name: str, value: object) -> ToolResult[Any]:
    if isinstance(value, ToolResult):
        return value
    return failures.bad_return(name, value)


def _run_in_thread(function: Callable[[], object], timeout: float | None, name: str) -> object:
    """Run ``function`` in a daemon thread and wait at most ``timeout`` seconds for it.

    A handler that overruns keeps running in its thread (Python cannot stop it); its result is
    discarded and the call is reported as timed out.
    """
    outcome: list[tuple[bool, object]] = []
    done = threading.Event()
    context = contextvars.copy_context()

    def target() -> None:
        try:
            outcome.append((True, context.run(function)))
        except BaseException as error:  # noqa: BLE001 - re-raised in the caller's thread
            outcome.append((False, error))
        finally:
            done.set()

    threading.Thread(target=target, name=f"affordance-tool-{name}", daemon=True).start()
    if not done.wait(timeout):
        raise _HandlerTimeoutError
    ok, value = outcome[0]
    if ok:
        return value
    raise value  # type: ignore[misc]


async def _in_daemon_thread(function: Callable[[], object], name: str) -> object:
    """Await ``function`` run in a daemon thread; abandoning the wait leaves the thread be."""
    import asyncio

    loop = asyncio.get_running_loop()
    future: asyncio.Future[object] = loop.create_future()
    context = contextvars.copy_context()

    def settle(ok: bool, value: object) -> None:
        if future.done():
            return
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)  # type: ignore[arg-type]

    def target() -> None:
        try:
            outcome: tuple[bool, object] = (True, context.run(function))
        except BaseException as error:  # noqa: BLE001 - handed to the awaiting task
            outcome = (False, error)
        # If the loop closed while the handler overran, nobody waits for the result any more.
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(settle, *outcome)

    threading.Thread(target=target, name=f"affordance-tool-{name}", daemon=True).start()
    return await future


def _run_coroutine(coroutine: Any, timeout: float | None) -> object:
    """Run an async handler from the sync driver, in its own event loop."""
    import asyncio

    async def bounded() -> object:
        if timeout is None:
            return await coroutine
        return await asyncio.wait_for(coroutine, timeout)

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        try:
            return asyncio.run(bounded())
        except (TimeoutError, asyncio.TimeoutError) as error:
            raise _HandlerTimeoutError from error
    # Called from inside a running loop (sync evaluate in async code): use a fresh thread.
    try:
        return _run_in_thread(
            lambda: asyncio.run(bounded()), None if timeout is None else timeout + 1, "async"
        )
    except (TimeoutError, asyncio.TimeoutError) as error:
        raise _HandlerTimeoutError from error


def _json_text(arguments: object) -> str:
    try:
        return json.dumps(dump(arguments) if not isinstance(arguments, (dict, list)) else arguments)
    except (TypeError, ValueError):
        return repr(arguments)

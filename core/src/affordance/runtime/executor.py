"""``ToolExecutor``: turns one model tool call into exactly one ``ToolResult``, never raising.

The work is split so the sync and async drivers share every decision:
:meth:`ToolExecutor.prepare` (lookup, policy, argument parsing and validation, confirmation
gate, cache lookup) is pure; :meth:`ToolExecutor.run` / :meth:`ToolExecutor.arun` call the
handler with timeout and retries; :meth:`ToolExecutor.finish` caches, logs and builds the event.
"""

from __future__ import annotations

import json
import random
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from affordance._fastinit import fast_init
from affordance._json import loads
from affordance.clock import SYSTEM_CLOCK, Clock
from affordance.errors import ToolError, ToolValidationError
from affordance.runtime import failures
from affordance.runtime._calllog import log_call, log_overrun
from affordance.runtime._coroutines import run_coroutine
from affordance.runtime._guard import HandlerEscape, await_guarded, call_guarded
from affordance.runtime._offthread import (
    HandlerTimeoutError,
    await_in_thread,
    await_in_worker,
    run_in_thread,
)
from affordance.runtime.cache import ResultCache, cache_key
from affordance.runtime.context import ToolContext
from affordance.runtime.messages import ToolCall
from affordance.runtime.policy import ToolPolicy
from affordance.serde import MAX_DEPTH, ParseError, dump, parse
from affordance.tools.result import ToolResult
from affordance.tools.retry import RetryPolicy
from affordance.tools.tool import Tool

__all__ = ["MAX_ARGUMENTS_SIZE", "CallOutcome", "PreparedCall", "ToolExecutor"]

NoneType = type(None)

MAX_ARGUMENTS_SIZE = 1_048_576
"""The most characters of JSON one call's arguments may take (1 MiB): the text as the model
sent it, or an already-parsed object as ``json.dumps`` writes it compactly. A model's turn is
far shorter than that (output token limits); more is a runaway or hostile answer, refused
before it is parsed."""


@fast_init
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


@fast_init
@dataclass(frozen=True, slots=True)
class CallOutcome:
    """What running a prepared call produced. ``rendered`` is ``result.render()`` when the
    executor already computed it (to check the value can be sent), so it is done once."""

    prepared: PreparedCall
    result: ToolResult[Any]
    duration: float = 0.0
    attempts: int = 0
    error_code: str | None = None
    rendered: str | None = None


class ToolExecutor:
    """Validation, policy, confirmation, caching, timeouts and retries for tool calls.

    ``default_timeout`` applies to tools without their own; ``retry`` to tools without their own
    retry policy. ``clock`` and ``random`` are injectable so tests control time and jitter.
    ``max_arguments_size`` bounds a call's arguments (:data:`MAX_ARGUMENTS_SIZE` by default).
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
        max_arguments_size: int = MAX_ARGUMENTS_SIZE,
    ) -> None:
        if max_arguments_size < 1:
            raise ValueError(f"max_arguments_size must be positive, got {max_arguments_size}")
        self.policy = policy
        self.default_timeout = default_timeout
        self.retry = retry if retry is not None else RetryPolicy()
        self.cache = cache if cache is not None else ResultCache()
        self.clock = clock
        self.random_unit = random_unit
        self.log_content = log_content
        self.max_arguments_size = max_arguments_size

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
        size = _json_size(arguments)
        if size is not None and size > self.max_arguments_size:
            too_large = failures.too_large(tool.name, size, self.max_arguments_size)
            return PreparedCall(call, tool, result=too_large)
        if isinstance(arguments, str):
            try:
                arguments = loads(arguments) if arguments.strip() else {}
            except ValueError as error:
                return PreparedCall(call, tool, result=failures.invalid_json(tool.name, str(error)))
            except RecursionError:  # nested past the stack; anything past MAX_DEPTH is refused
                detail = f"nested deeper than {MAX_DEPTH} levels"
                return PreparedCall(
                    call, tool, result=failures.invalid_arguments(tool.name, detail)
                )
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
        attempts = _Attempts(self, prepared, context)
        while True:
            timeout = attempts.begin()
            if isinstance(timeout, CallOutcome):
                return timeout
            try:
                value = self._call_sync(attempts.tool, prepared.params, context, timeout)
                attempts.check_in_time(timeout)
            except Exception as error:  # noqa: BLE001 - every handler failure becomes a result
                step = attempts.failed(error, timeout)
                if isinstance(step, CallOutcome):
                    return step
                self.clock.sleep(step)
            else:
                return attempts.succeeded(value)

    async def arun(self, prepared: PreparedCall, context: ToolContext) -> CallOutcome:
        """Run a prepared call on the event loop; sync handlers run in a worker thread."""
        if prepared.result is not None:
            return CallOutcome(prepared, prepared.result)
        attempts = _Attempts(self, prepared, context)
        while True:
            timeout = attempts.begin()
            if isinstance(timeout, CallOutcome):
                return timeout
            try:
                value = await self._call_async(attempts.tool, prepared.params, context, timeout)
                attempts.check_in_time(timeout)
            except Exception as error:  # noqa: BLE001 - every handler failure becomes a result
                step = attempts.failed(error, timeout)
                if isinstance(step, CallOutcome):
                    return step
                await self.clock.asleep(step)
            else:
                return attempts.succeeded(value)

    def finish(self, outcome: CallOutcome, *, run_id: str, turn: int) -> None:
        """The bookkeeping once a call is over: :meth:`remember` it, then :meth:`record` it."""
        self.remember(outcome)
        self.record(outcome, run_id=run_id, turn=turn)

    def remember(self, outcome: CallOutcome) -> None:
        """Store a fresh success of a cached tool in the cache."""
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

    def record(self, outcome: CallOutcome, *, run_id: str, turn: int) -> None:
        """Log the call on ``affordance.tools`` (metadata only, unless ``log_content``)."""
        prepared = outcome.prepared
        result = outcome.result
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

    def _call_sync(
        self, tool: Tool[Any, Any], params: Any, context: ToolContext, timeout: float | None
    ) -> object:
        if tool.is_async:
            return run_coroutine(await_guarded(_invoke(tool, params, context)), timeout)
        if timeout is None:
            return call_guarded(lambda: _invoke(tool, params, context))
        return run_in_thread(
            lambda: call_guarded(lambda: _invoke(tool, params, context)), timeout, tool.name
        )

    async def _call_async(
        self, tool: Tool[Any, Any], params: Any, context: ToolContext, timeout: float | None
    ) -> object:
        import asyncio

        def call() -> object:
            return call_guarded(lambda: _invoke(tool, params, context))

        if tool.is_async:
            awaitable: Awaitable[object] = await_guarded(_invoke(tool, params, context))
        elif timeout is None:
            awaitable = await_in_worker(call)
        else:
            # A daemon thread of its own, not a shared worker: an overrunning handler must
            # hold up neither the workers nor the loop's shutdown.
            awaitable = await_in_thread(call, tool.name)
        if timeout is None:
            return await awaitable
        try:
            return await asyncio.wait_for(awaitable, timeout)
        except asyncio.TimeoutError as error:
            raise HandlerTimeoutError from error


def _json_size(arguments: object) -> int | None:
    """The characters of JSON ``arguments`` take; None when an object has no JSON form (its
    parsing says what is wrong with it)."""
    if isinstance(arguments, str):
        return len(arguments)
    if not isinstance(arguments, Mapping):
        return None
    try:
        return len(json.dumps(dict(arguments), ensure_ascii=False, separators=(",", ":")))
    except (TypeError, ValueError, RecursionError):
        return None


class _Attempts:
    """The retry loop's decisions for one call, shared by :meth:`ToolExecutor.run` and
    :meth:`ToolExecutor.arun` (which differ only in how they wait)."""

    __slots__ = (
        "attempt",
        "attempt_started",
        "context",
        "executor",
        "prepared",
        "retry",
        "started",
        "tool",
    )

    def __init__(
        self, executor: ToolExecutor, prepared: PreparedCall, context: ToolContext
    ) -> None:
        tool = prepared.tool
        assert tool is not None
        assert tool.handler is not None
        self.executor = executor
        self.prepared = prepared
        self.context = context
        self.tool: Tool[Any, Any] = tool
        self.retry = tool.retry or executor.retry
        self.started = executor.clock.monotonic()
        self.attempt_started = self.started
        self.attempt = 0

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
        name = self.tool.name
        result = _checked(name, value)
        try:
            rendered = result.render()
        except Exception as error:  # noqa: BLE001 - dump refusing the value, or its render()
            return self._outcome(failures.unrenderable(name, error), "unrenderable_result")
        return self._outcome(result, rendered=rendered)

    def failed(self, error: Exception, timeout: float | None) -> float | CallOutcome:
        """The seconds to wait before trying again, or the final outcome."""
        name = self.tool.name
        result: ToolResult[Any]
        if isinstance(error, HandlerEscape):  # a BaseException the handler let out
            result = failures.handler_raised(name, error.error)
            code, again = type(error.error).__name__, False
        elif isinstance(error, HandlerTimeoutError):
            result, code, again = failures.timed_out(name, timeout or 0), "timeout", False
            again = self.retry.retry_timeouts
        elif isinstance(error, ToolError):
            result, code, again = failures.tool_error(error), error.code, error.retryable
        elif isinstance(error, ToolValidationError):
            result = failures.invalid_arguments(name, error.message)
            code, again = "invalid_arguments", False
        else:
            result, code, again = failures.handler_raised(name, error), type(error).__name__, False
        if not again or self.attempt >= self.retry.max_attempts:
            return self._outcome(result, code)
        delay = self.retry.delay(self.attempt, self.executor.random_unit())
        deadline = self.context.deadline
        if deadline is not None and deadline.remaining() <= delay:
            return self._outcome(result, code)
        return delay

    def _outcome(
        self,
        result: ToolResult[Any],
        error_code: str | None = None,
        *,
        rendered: str | None = None,
    ) -> CallOutcome:
        duration = self.executor.clock.monotonic() - self.started
        return CallOutcome(self.prepared, result, duration, self.attempt, error_code, rendered)


def _invoke(tool: Tool[Any, Any], params: Any, context: ToolContext) -> Any:
    handler = tool.handler
    assert handler is not None
    if tool.takes_context:
        return handler(params, context=context)
    return handler(params)


def _handler_name(tool: Tool[Any, Any]) -> str:
    handler = tool.handler
    name = getattr(handler, "__qualname__", None) or type(handler).__qualname__
    module = getattr(handler, "__module__", None)
    return f"{module}.{name}" if module else name


def _checked(name: str, value: object) -> ToolResult[Any]:
    if isinstance(value, ToolResult):
        return value
    return failures.bad_return(name, value)


def _json_text(arguments: object) -> str:
    try:
        return json.dumps(dump(arguments))
    except ValueError:  # nested deeper than serde.MAX_DEPTH: neither json nor repr is safe
        return "<arguments nested too deep to log>"
    except TypeError:
        return repr(arguments)

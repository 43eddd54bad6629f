"""``ToolExecutor``: turns one model tool call into exactly one ``ToolResult``, never raising.

The work is split so the sync and async drivers share every decision:
:meth:`ToolExecutor.prepare` (lookup, policy, argument parsing and validation, confirmation
gate, cache lookup) is pure; :meth:`ToolExecutor.run` / :meth:`ToolExecutor.arun` call the
handler with timeout and retries (each attempt's decisions are ``_attempts.Attempts``');
:meth:`ToolExecutor.finish` caches and logs. A call travels as a ``PreparedCall`` and ends as a
``CallOutcome`` (``affordance.runtime.calls.prepared``, re-exported here). A call someone
watches (``ToolHandlerStarted``) runs in a copy of the caller's context (``_handler_events``).
"""

from __future__ import annotations

import json
import random
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from affordance._json import loads
from affordance.clock import SYSTEM_CLOCK, Clock
from affordance.runtime.calls import failures
from affordance.runtime.calls._attempts import Attempts
from affordance.runtime.calls._calllog import call_level, log_call
from affordance.runtime.calls._coroutines import run_coroutine
from affordance.runtime.calls._guard import await_guarded, call_guarded
from affordance.runtime.calls._handler_events import arun_isolated, handler_watched, run_isolated
from affordance.runtime.calls._offthread import (
    HandlerTimeoutError,
    await_in_thread,
    await_in_worker,
    run_in_thread,
)
from affordance.runtime.calls.cache import ResultCache, cache_key
from affordance.runtime.calls.context import ToolContext
from affordance.runtime.calls.policy import ToolPolicy
from affordance.runtime.calls.prepared import CallOutcome, PreparedCall
from affordance.runtime.model.messages import ToolCall
from affordance.serde import MAX_DEPTH, ParseError, dump, parse
from affordance.tools.retry import RetryPolicy
from affordance.tools.tool import Tool

__all__ = ["MAX_ARGUMENTS_SIZE", "CallOutcome", "PreparedCall", "ToolExecutor"]

NoneType = type(None)

MAX_ARGUMENTS_SIZE = 1_048_576
"""The most characters of JSON one call's arguments may take (1 MiB): the text as the model
sent it, or an already-parsed object as ``json.dumps`` writes it compactly. A model's turn is
far shorter than that (output token limits); more is a runaway or hostile answer, refused
before it is parsed."""


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
        size = len(arguments) if isinstance(arguments, str) else _json_size(arguments)
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
        # parsed JSON gives a dict, which needs no (costlier) Mapping check
        if type(arguments) is not dict and not isinstance(arguments, Mapping):
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
        if handler_watched(context):
            return run_isolated(lambda: self._run(Attempts(self, prepared, context, True)))
        return self._run(Attempts(self, prepared, context))

    def _run(self, attempts: Attempts) -> CallOutcome:
        prepared, context = attempts.prepared, attempts.context
        while True:
            timeout = attempts.begin()
            if isinstance(timeout, CallOutcome):
                return timeout
            try:
                value = self._call_sync(attempts.tool, prepared.params, context, timeout)
                if timeout is not None:  # only a bounded attempt can overrun
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
        if handler_watched(context):
            return await arun_isolated(self._arun(prepared, context, watched=True))
        return await self._arun(prepared, context)

    async def _arun(
        self, prepared: PreparedCall, context: ToolContext, *, watched: bool = False
    ) -> CallOutcome:
        attempts = Attempts(self, prepared, context, watched)
        while True:
            timeout = attempts.begin()
            if isinstance(timeout, CallOutcome):
                return timeout
            try:
                value = await self._call_async(attempts.tool, prepared.params, context, timeout)
                if timeout is not None:  # only a bounded attempt can overrun
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
        if outcome.prepared.cache_key is not None:  # only a cached tool's call has a key
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
        level = call_level(result.success)
        if level is None:
            return
        content = None
        if self.log_content:
            content = {"arguments": _json_text(prepared.arguments), "result": result.model_text()}
        log_call(
            level=level,
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
        if tool.shape.is_async:
            return run_coroutine(await_guarded(_invoke(tool, params, context)), timeout)
        if timeout is None:
            return call_guarded(_invoke, tool, params, context)
        return run_in_thread(
            lambda: call_guarded(_invoke, tool, params, context), timeout, tool.name
        )

    async def _call_async(
        self, tool: Tool[Any, Any], params: Any, context: ToolContext, timeout: float | None
    ) -> object:
        import asyncio

        def call() -> object:
            return call_guarded(_invoke, tool, params, context)

        if tool.shape.is_async:
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


_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
"""``json.dumps(..., ensure_ascii=False, separators=(",", ":"))``, made once: ``dumps`` with
options builds its encoder per call, which costs as much as the encoding of a small object."""


def _json_size(arguments: object) -> int | None:
    """The characters of JSON an already-parsed ``arguments`` object takes; None when it has no
    JSON form (its parsing says what is wrong with it)."""
    if type(arguments) is not dict and not isinstance(arguments, Mapping):
        return None
    try:
        return len(_COMPACT.encode(dict(arguments)))
    except (TypeError, ValueError, RecursionError):
        return None


def _invoke(tool: Tool[Any, Any], params: Any, context: ToolContext) -> Any:
    handler = tool.handler
    assert handler is not None
    if tool.shape.takes_context:
        return handler(params, context=context)
    return handler(params)


def _json_text(arguments: object) -> str:
    try:
        return json.dumps(dump(arguments))
    except ValueError:  # nested deeper than serde.MAX_DEPTH: neither json nor repr is safe
        return "<arguments nested too deep to log>"
    except TypeError:
        return repr(arguments)

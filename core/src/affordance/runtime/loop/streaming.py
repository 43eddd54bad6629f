"""The streaming drivers of the sans-IO loop: they feed ``stream()``'s and ``astream()``'s event
streams (``affordance.runtime.record.streams``).

They run the same :class:`~affordance.runtime.loop.Evaluation` as ``evaluate`` — only the way a
model turn arrives differs: as deltas from the provider's ``send_stream``, joined by the core's
:class:`~affordance.runtime.model.deltas.TurnAssembler` into the turn a plain request would return.
Tools run once the turn is complete (no provider lets results go back while the model is still
speaking). Leaving the stream early closes the provider's stream (its HTTP response) at once;
an async consumer that is cancelled cancels the tool calls in flight the way a timeout does.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from typing import Any

from affordance.errors import PromptEvaluationError
from affordance.runtime.calls.prepared import CallOutcome
from affordance.runtime.loop.actions import Action, Finished, RunCalls, SendRequest
from affordance.runtime.loop.evaluation import Evaluation
from affordance.runtime.loop.request_events import RequestWatch
from affordance.runtime.model.deltas import (
    Delta,
    DeltaError,
    HostedActivity,
    RefusalPiece,
    TextPiece,
    ToolCallArguments,
    ToolCallBegun,
    TurnAssembler,
)
from affordance.runtime.model.turn import ModelRequest, ProviderTurn
from affordance.runtime.record.confirmation import arguments_of
from affordance.runtime.record.events import ConfirmationRequested, OutputRetried, ToolInvoked
from affordance.runtime.record.response import PromptResponse
from affordance.runtime.record.stream_events import (
    ConfirmationRequired,
    HostedToolActivity,
    HostedToolResult,
    OutputRetry,
    RefusalDelta,
    RunFinished,
    RunStarted,
    StreamEvent,
    TextDelta,
    ToolCallArgumentsDelta,
    ToolCallFinished,
    ToolCallStarted,
    TurnFinished,
)
from affordance.tools.hosted import HostedToolOutput

__all__ = ["stream_async", "stream_sync"]

SendStream = Callable[[ModelRequest], Iterator[Delta]]
AsendStream = Callable[[ModelRequest], AsyncIterator[Delta]]


class _Translation:
    """Turns deltas and the loop's events into stream events for one run."""

    __slots__ = ("call_ids", "evaluation", "pending")

    def __init__(self, evaluation: Evaluation[Any], pending: list[object]) -> None:
        self.evaluation = evaluation
        self.pending = pending
        self.call_ids: dict[int, str] = {}

    def delta(self, delta: Delta, turn: int) -> StreamEvent | None:
        if isinstance(delta, TextPiece):  # the drivers show a plain one inline; a subclass here
            return TextDelta(delta.text, turn) if delta.text else None
        if isinstance(delta, ToolCallArguments):
            call_id = self.call_ids.get(delta.index, "")
            return ToolCallArgumentsDelta(call_id, delta.text) if delta.text else None
        if isinstance(delta, ToolCallBegun):
            self.call_ids[delta.index] = delta.call_id
            return ToolCallStarted(delta.call_id, delta.name, turn)
        if isinstance(delta, RefusalPiece):
            return RefusalDelta(delta.text, turn) if delta.text else None
        if isinstance(delta, HostedActivity):
            return HostedToolActivity(delta.item_type, delta.status, delta.item_id)
        return None

    def loop_events(self) -> Iterator[StreamEvent]:
        """What the loop published since the last call, as stream events."""
        pending = self.pending
        while pending:
            event = pending.pop(0)
            if isinstance(event, ToolInvoked):
                yield ToolCallFinished(event.call_id, event.name, event.result, event.turn)
            elif isinstance(event, ConfirmationRequested):
                yield ConfirmationRequired(event.call_id, event.name, arguments_of(event.params))
            elif isinstance(event, OutputRetried):
                yield OutputRetry(event.turn, event.attempt, event.problems)

    def turn_done(self, request: ModelRequest, turn: ProviderTurn) -> StreamEvent:
        """The event closing a turn (call indexes start again with the next one)."""
        self.call_ids = {}
        return TurnFinished(request.turn, turn.usage, turn.finish_reason)


def _new_outputs(
    before: Mapping[str, HostedToolOutput], after: Mapping[str, HostedToolOutput]
) -> Iterator[StreamEvent]:
    for name, output in after.items():
        if before.get(name) is not output:
            yield HostedToolResult(name, output)


def stream_sync(
    evaluation: Evaluation[Any],
    action: Action,
    send_stream: SendStream,
    pending: list[object],
    *,
    resumed: bool = False,
) -> Iterator[StreamEvent]:
    """Run an evaluation in this thread, yielding its events; see
    :class:`~affordance.runtime.record.streams.EventStream`."""
    translate = _Translation(evaluation, pending)
    executor = evaluation.executor
    provider = getattr(evaluation.adapter, "name", None)
    watch = RequestWatch.of(evaluation)
    try:
        if watch is not None:
            watch.started()
        yield RunStarted(evaluation.prompt.name, evaluation.run_id, resumed)
        yield from translate.loop_events()
        while True:
            if isinstance(action, SendRequest):
                request = action.request
                assembler = TurnAssembler()
                first: float | None = 0.0  # unwatched: never timed
                if watch is None:
                    sent, deltas = 0.0, send_stream(request)
                else:
                    (sent, deltas), first = watch.stream(send_stream, request), None
                try:
                    for delta in deltas:
                        if first is None:
                            first = time.perf_counter()
                        try:
                            assembler.add(delta)
                        except DeltaError as error:  # deltas that make no turn
                            raise _broken(error, provider, request.prompt_name) from error
                        if type(delta) is TextPiece:  # most deltas: no call to translate them
                            if delta.text:
                                yield TextDelta(delta.text, request.turn)
                            continue
                        shown = translate.delta(delta, request.turn)
                        if shown is not None:
                            yield shown
                except BaseException as error:
                    if watch is not None:
                        watch.failed(request, error, sent)
                    raise
                finally:
                    _close(deltas)
                turn = assembler.turn(provider=provider, prompt_name=request.prompt_name)
                if watch is not None:
                    watch.answered(request, turn, sent, first)
                yield translate.turn_done(request, turn)
                before = dict(evaluation.hosted_outputs)
                action = evaluation.on_turn(turn)
                yield from _new_outputs(before, evaluation.hosted_outputs)
            elif isinstance(action, RunCalls):
                outcomes = [executor.run(prepared, context) for prepared, context in action.calls]
                action = evaluation.on_outcomes(outcomes)
            else:
                yield from translate.loop_events()
                yield RunFinished(_response(action))
                return
            yield from translate.loop_events()
    except BaseException as error:
        if watch is not None:
            watch.run_failed(error)
        raise
    finally:
        evaluation.observer = None
        if evaluation.conversation is not None:  # also when the consumer left early
            evaluation.save_conversation()


async def stream_async(
    evaluation: Evaluation[Any],
    action: Action,
    send_stream: AsendStream,
    pending: list[object],
    *,
    resumed: bool = False,
) -> AsyncIterator[StreamEvent]:
    """Run an evaluation on the event loop, yielding its events; the tool calls of a turn run
    concurrently. See :class:`~affordance.runtime.record.streams.AsyncEventStream`."""
    translate = _Translation(evaluation, pending)
    executor = evaluation.executor
    provider = getattr(evaluation.adapter, "name", None)
    watch = RequestWatch.of(evaluation, asynchronous=True)
    try:
        if watch is not None:
            watch.started()
        yield RunStarted(evaluation.prompt.name, evaluation.run_id, resumed)
        for event in translate.loop_events():
            yield event
        while True:
            if isinstance(action, SendRequest):
                request = action.request
                assembler = TurnAssembler()
                first: float | None = 0.0  # unwatched: never timed
                if watch is None:
                    sent, adeltas = 0.0, send_stream(request)
                else:
                    (sent, adeltas), first = watch.astream(send_stream, request), None
                try:
                    async for delta in adeltas:
                        if first is None:
                            first = time.perf_counter()
                        try:
                            assembler.add(delta)
                        except DeltaError as error:  # deltas that make no turn
                            raise _broken(error, provider, request.prompt_name) from error
                        if type(delta) is TextPiece:  # most deltas: no call to translate them
                            if delta.text:
                                yield TextDelta(delta.text, request.turn)
                            continue
                        shown = translate.delta(delta, request.turn)
                        if shown is not None:
                            yield shown
                except BaseException as error:
                    if watch is not None:
                        watch.failed(request, error, sent)
                    raise
                finally:
                    await _aclose(adeltas)
                turn = assembler.turn(provider=provider, prompt_name=request.prompt_name)
                if watch is not None:
                    watch.answered(request, turn, sent, first)
                yield translate.turn_done(request, turn)
                before = dict(evaluation.hosted_outputs)
                action = evaluation.on_turn(turn)
                for event in _new_outputs(before, evaluation.hosted_outputs):
                    yield event
            elif isinstance(action, RunCalls):
                calls = action.calls
                outcomes: list[CallOutcome]
                if len(calls) == 1:
                    outcomes = [await executor.arun(*calls[0])]
                else:
                    outcomes = list(await asyncio.gather(*(executor.arun(p, c) for p, c in calls)))
                action = evaluation.on_outcomes(outcomes)
            else:
                for event in translate.loop_events():
                    yield event
                yield RunFinished(_response(action))
                return
            for event in translate.loop_events():
                yield event
    except BaseException as error:
        if watch is not None:
            watch.run_failed(error)
        raise
    finally:
        evaluation.observer = None
        if evaluation.conversation is not None:  # also when the consumer left early
            evaluation.save_conversation()


def _response(action: Finished[Any]) -> PromptResponse[Any]:
    return action.response


def _broken(error: DeltaError, provider: str | None, prompt_name: str) -> PromptEvaluationError:
    """The error of a stream whose deltas do not make a turn (arguments for a call that never
    began, a delta after the end): what the provider sent cannot be read."""
    return PromptEvaluationError(
        f"the response stream cannot be read: {error}",
        prompt_name=prompt_name,
        phase="response",
        provider=provider,
    )


def _close(deltas: Iterator[Delta]) -> None:
    close = getattr(deltas, "close", None)
    if close is not None:
        close()


async def _aclose(deltas: AsyncIterator[Delta]) -> None:
    aclose = getattr(deltas, "aclose", None)
    if aclose is not None:
        await aclose()

"""The two drivers of the sans-IO loop: they perform its actions and feed back the results."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from affordance.runtime.calls.prepared import CallOutcome
from affordance.runtime.loop.actions import Action, RunCalls, SendRequest
from affordance.runtime.loop.evaluation import Evaluation
from affordance.runtime.loop.request_events import RequestWatch
from affordance.runtime.model.turn import ModelRequest, ProviderTurn
from affordance.runtime.record.response import PromptResponse

__all__ = ["drive", "drive_async"]

OutputT = TypeVar("OutputT")


def drive(
    evaluation: Evaluation[OutputT],
    action: Action,
    send: Callable[[ModelRequest], ProviderTurn],
) -> PromptResponse[OutputT]:
    """Run an evaluation to its end in this thread; tool calls of a turn run one by one."""
    executor = evaluation.executor
    watch = RequestWatch.of(evaluation)
    try:
        if watch is not None:
            watch.started()
        while True:
            if isinstance(action, SendRequest):
                if watch is None:
                    action = evaluation.on_turn(send(action.request))
                else:
                    action = evaluation.on_turn(watch.send(send, action.request))
            elif isinstance(action, RunCalls):
                outcomes = [executor.run(prepared, context) for prepared, context in action.calls]
                action = evaluation.on_outcomes(outcomes)
            else:
                return action.response
    except BaseException as error:
        if watch is not None:
            watch.run_failed(error)
        raise
    finally:
        if evaluation.conversation is not None:
            evaluation.save_conversation()


async def drive_async(
    evaluation: Evaluation[OutputT],
    action: Action,
    send: Callable[[ModelRequest], Awaitable[ProviderTurn]],
) -> PromptResponse[OutputT]:
    """Run an evaluation on the event loop; the tool calls of a turn run concurrently."""
    import asyncio

    executor = evaluation.executor
    watch = RequestWatch.of(evaluation, asynchronous=True)
    try:
        if watch is not None:
            watch.started()
        while True:
            if isinstance(action, SendRequest):
                if watch is None:
                    action = evaluation.on_turn(await send(action.request))
                else:
                    action = evaluation.on_turn(await watch.asend(send, action.request))
            elif isinstance(action, RunCalls):
                calls = action.calls
                outcomes: list[CallOutcome]
                if len(calls) == 1:
                    outcomes = [await executor.arun(*calls[0])]
                else:
                    outcomes = list(await asyncio.gather(*(executor.arun(p, c) for p, c in calls)))
                action = evaluation.on_outcomes(outcomes)
            else:
                return action.response
    except BaseException as error:
        if watch is not None:
            watch.run_failed(error)
        raise
    finally:
        if evaluation.conversation is not None:  # a short write: kept on the loop, so a
            evaluation.save_conversation()  # cancelled run still saves what is whole

"""Durable runs against a real Temporal dev server: the same answers as ``aevaluate``, a worker
killed mid-run replaced without running any tool call twice, confirmations sent while no worker
runs, failures as ``evaluate`` raises them, and activities routed by task queue."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from durable_app import (
    ASKING,
    CHECKED,
    DELEGATING,
    GATE_ENV,
    HERE_MODULE_DIR,
    LEDGER_ENV,
    PROMPT,
    Count,
    Ledger,
    NoteRef,
    Task,
    make_adapter,
    make_registry,
)
from temporalio.client import Client

from affordance import (
    FileOverridesStore,
    PromptEvaluationError,
    PromptResponse,
    UsageLimits,
    approve,
    deny,
)
from affordance.prompt.overrides import seed_overrides
from affordance.runtime.record.confirmation import PendingConfirmation
from affordance.testing import comparable, comparable_calls
from affordance_temporal import DurableRunHandle, RunOptions, durable_worker, start_run
from affordance_temporal.testing import DevServer
from affordance_temporal.workflow import NO_ANSWER

pytestmark = pytest.mark.slow


def workflow_id() -> str:
    return f"run-{uuid.uuid4().hex[:12]}"


async def expected_run(ledger: Ledger, script: str, **resume: Any) -> PromptResponse[Any]:
    """The same conversation through ``aevaluate`` (resumed with ``confirmations`` if given)."""
    registry = make_registry(ledger)
    adapter = make_adapter()
    prompt = registry.prompt(PROMPT)
    response = await adapter.aevaluate(prompt, Task(script))
    if resume:
        response = await adapter.aevaluate(prompt, session=response.session, **resume)
    return response


async def start(
    client: Client, ledger: Ledger, task_queue: str, script: str, **options: Any
) -> DurableRunHandle:
    return await start_run(
        client,
        make_registry(ledger),
        PROMPT,
        Task(script),
        task_queue=task_queue,
        workflow_id=workflow_id(),
        options=RunOptions(**options),
    )


@pytest.mark.parametrize("script", ["save", "parallel"])
def test_a_durable_run_answers_exactly_as_aevaluate_on_the_same_conversation(
    temporal_server: DevServer, tmp_path: Path, task_queue: str, script: str
) -> None:
    """Parallel calls and a retryable failure (retried by Temporal, not the executor) included."""
    durable_ledger, plain_ledger = Ledger(tmp_path / "d.db"), Ledger(tmp_path / "p.db")

    async def scenario() -> tuple[PromptResponse[Any], PromptResponse[Any]]:
        client = await Client.connect(temporal_server.address)
        registry = make_registry(durable_ledger)
        async with durable_worker(client, registry, task_queue=task_queue, adapter=make_adapter()):
            handle = await start(client, durable_ledger, task_queue, script)
            durable = await handle.result()
        return durable, await expected_run(plain_ledger, script)

    durable, plain = asyncio.run(scenario())

    assert comparable(durable) == comparable(plain)
    assert sorted(durable_ledger.executions()) == sorted(plain_ledger.executions())
    if script == "parallel":
        # the retryable failure ran its policy's 2 attempts, as the executor would have
        assert durable_ledger.executions().count(("flaky", "call-c")) == 2


def test_a_worker_killed_after_a_tool_call_is_replaced_and_each_call_runs_exactly_once(
    temporal_server: DevServer, tmp_path: Path, task_queue: str
) -> None:
    ledger = Ledger(tmp_path / "ledger.db")
    gate = tmp_path / "gate"
    gate.mkdir()
    env = {
        **os.environ,
        LEDGER_ENV: str(ledger.path),
        GATE_ENV: str(gate),
        "PYTHONPATH": os.pathsep.join([HERE_MODULE_DIR, os.environ.get("PYTHONPATH", "")]),
    }
    command = [
        sys.executable,
        "-m",
        "affordance_temporal",
        "worker",
        "--address",
        temporal_server.address,
        "--task-queue",
        task_queue,
        "--registry",
        "durable_app:registry_from_env",
        "--adapter",
        "durable_app:make_adapter",
        "--sticky-timeout",
        "0.5",
    ]
    doomed = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL)

    async def scenario() -> tuple[PromptResponse[Any], list[Any]]:
        client = await Client.connect(temporal_server.address)
        handle = await start(
            client, ledger, task_queue, "save", model_heartbeat_timeout=1, model_retry_interval=0.1
        )
        await _wait_for(gate / "turn2-started", doomed)
        # the tool call of turn 1 is done and recorded; turn 2's model request is in flight
        assert ledger.executions() == [("add_note", "call-add")]
        doomed.kill()
        doomed.wait()
        registry = make_registry(ledger)  # a new worker, ungated, in this process
        async with durable_worker(client, registry, task_queue=task_queue, adapter=make_adapter()):
            response = await handle.result()
        history = await handle.handle.fetch_history()
        return response, list(history.events)

    try:
        response, events = asyncio.run(scenario())
    finally:
        if doomed.poll() is None:
            doomed.kill()
            doomed.wait()

    assert response.text == "note #1: milk"
    assert ledger.executions() == [("add_note", "call-add")]  # once, though two workers served
    started = [
        e.activity_task_started_event_attributes
        for e in events
        if e.HasField("activity_task_started_event_attributes")
    ]
    # model 1 and the tool on the killed worker; model 2 retried and answered by the new one
    assert [s.attempt for s in started] == [1, 1, 2]
    assert started[0].identity == started[1].identity != started[2].identity


@pytest.mark.parametrize("answer", [approve(), deny("keep it")], ids=["approve", "deny"])
def test_a_confirmation_sent_while_no_worker_runs_resumes_the_run_after_the_restart(
    temporal_server: DevServer, tmp_path: Path, task_queue: str, answer: Any
) -> None:
    ledger, plain_ledger = Ledger(tmp_path / "d.db"), Ledger(tmp_path / "p.db")
    fast_sticky = {"sticky_queue_schedule_to_start_timeout": _seconds(0.5)}

    async def scenario() -> tuple[Any, ...]:
        client = await Client.connect(temporal_server.address)
        registry = make_registry(ledger)
        async with durable_worker(
            client, registry, task_queue=task_queue, adapter=make_adapter(), **fast_sticky
        ):
            handle = await start(client, ledger, task_queue, "save-and-delete")
            settled = await handle.settled()
            pending = await handle.pending_confirmations()
            status = await handle.status()
        # no worker now: the answer waits for one (the run checks it is for a pending call)
        confirming = asyncio.ensure_future(handle.confirm("call-del", answer))
        await asyncio.sleep(0.5)
        assert not confirming.done()
        restarted = make_registry(ledger)
        async with durable_worker(client, restarted, task_queue=task_queue, adapter=make_adapter()):
            await confirming
            response = await handle.result()
        suspended = await expected_run(Ledger(tmp_path / "s.db"), "save-and-delete")
        plain = await expected_run(
            plain_ledger, "save-and-delete", confirmations={"call-del": answer}
        )
        return settled, pending, status, response, suspended, plain

    settled, pending, status, response, suspended, plain = asyncio.run(scenario())

    waiting = (PendingConfirmation("call-del", "delete_note", NoteRef(1), {"note_id": 1}),)
    assert settled.pending == waiting
    assert settled.said == ASKING
    # the calls run before the wait, typed as the suspended response in the process holds them
    assert [r.call.id for r in settled.tool_results] == ["call-add"]
    assert comparable_calls(settled.tool_results) == comparable_calls(suspended.tool_results)
    assert settled.messages == suspended.messages
    assert pending == waiting
    assert (status.state, status.turn, status.said) == ("waiting", 2, ASKING)
    assert [item.call.id for item in status.tool_results] == ["call-add"]
    assert comparable(response) == comparable(plain)
    if answer.approved:
        assert ledger.executions() == [("add_note", "call-add"), ("delete_note", "call-del")]
        assert response.text == "note #1: milk | deleted note #1"
    else:
        assert ledger.executions() == [("add_note", "call-add")]
        assert response.text == (
            "note #1: milk | The user declined to run 'delete_note'; it was not run. "
            "Reason: keep it"
        )


def test_an_unanswered_confirmation_is_denied_when_the_confirmation_timeout_passes(
    temporal_server: DevServer, ledger: Ledger, task_queue: str
) -> None:
    async def scenario() -> PromptResponse[Any]:
        client = await Client.connect(temporal_server.address)
        registry = make_registry(ledger)
        async with durable_worker(client, registry, task_queue=task_queue, adapter=make_adapter()):
            handle = await start(
                client, ledger, task_queue, "save-and-delete", confirmation_timeout=0.2
            )
            return await handle.result()

    response = asyncio.run(scenario())

    assert ledger.executions() == [("add_note", "call-add")]
    assert response.tool_results[-1].result.message == (
        f"The user declined to run 'delete_note'; it was not run. Reason: {NO_ANSWER}"
    )


def test_a_provider_error_fails_the_run_with_the_error_evaluate_raises(
    temporal_server: DevServer, ledger: Ledger, task_queue: str
) -> None:
    async def scenario() -> None:
        client = await Client.connect(temporal_server.address)
        registry = make_registry(ledger)
        async with durable_worker(client, registry, task_queue=task_queue, adapter=make_adapter()):
            handle = await start(client, ledger, task_queue, "fail")
            await handle.result()

    with pytest.raises(PromptEvaluationError) as raised:
        asyncio.run(scenario())

    error = raised.value
    assert (error.message, error.phase, error.provider, error.status) == (
        "the request is invalid",
        "request",
        "scripted",
        400,
    )


def test_a_durable_run_honours_its_usage_limits_and_stops_before_the_next_request(
    temporal_server: DevServer, ledger: Ledger, task_queue: str
) -> None:
    async def scenario() -> None:
        client = await Client.connect(temporal_server.address)
        registry = make_registry(ledger)
        async with durable_worker(client, registry, task_queue=task_queue, adapter=make_adapter()):
            handle = await start_run(
                client,
                registry,
                PROMPT,
                Task("save"),
                task_queue=task_queue,
                workflow_id=workflow_id(),
                limits=UsageLimits(requests=1),
            )
            await handle.result()

    with pytest.raises(PromptEvaluationError) as raised:
        asyncio.run(scenario())

    assert raised.value.phase == "limits"
    assert "requests limit (2 of at most 1)" in raised.value.message
    assert ledger.executions() == [("add_note", "call-add")]  # turn 1's call ran, then it stopped


def test_a_durable_run_refuses_a_cost_limit_before_it_starts(ledger: Ledger) -> None:
    registry = make_registry(ledger)
    with pytest.raises(ValueError, match="cannot hold a cost limit"):
        asyncio.run(
            start_run(
                None,  # type: ignore[arg-type] - refused before the client is used
                registry,
                PROMPT,
                Task("save"),
                task_queue="unused",
                workflow_id=workflow_id(),
                limits=UsageLimits(cost=1.0),
            )
        )


def durable_and_plain(
    server: DevServer, ledger: Ledger, task_queue: str, prompt: str, task: Task
) -> tuple[PromptResponse[Any], PromptResponse[Any]]:
    """The responses of ``prompt`` run durably and under ``aevaluate``, on the same model."""

    async def scenario() -> tuple[PromptResponse[Any], PromptResponse[Any]]:
        client = await Client.connect(server.address)
        registry = make_registry(ledger)
        async with durable_worker(client, registry, task_queue=task_queue, adapter=make_adapter()):
            handle = await start_run(
                client, registry, prompt, task, task_queue=task_queue, workflow_id=workflow_id()
            )
            durable = await handle.result()
        return durable, await make_adapter().aevaluate(registry.prompt(prompt), task)

    return asyncio.run(scenario())


def test_a_durable_run_sends_a_rejected_answer_back_as_evaluate_does(
    temporal_server: DevServer, ledger: Ledger, task_queue: str
) -> None:
    durable, plain = durable_and_plain(
        temporal_server, ledger, task_queue, CHECKED, Task("checked")
    )

    assert durable.output == plain.output == Count(2)
    assert durable.turns == plain.turns == 2
    assert comparable(durable) == comparable(plain)


def test_a_nested_prompts_destructive_call_fails_readably_in_a_durable_run(
    temporal_server: DevServer, ledger: Ledger, task_queue: str
) -> None:
    async def scenario() -> PromptResponse[Any]:
        client = await Client.connect(temporal_server.address)
        registry = make_registry(ledger)
        async with durable_worker(client, registry, task_queue=task_queue, adapter=make_adapter()):
            handle = await start_run(
                client,
                registry,
                DELEGATING,
                Task("delegate"),
                task_queue=task_queue,
                workflow_id=workflow_id(),
            )
            return await handle.result()

    response = asyncio.run(scenario())

    (result,) = response.tool_results
    assert (result.name, result.result.success) == ("clerk", False)
    assert "durable run cannot wait" in result.result.message
    assert ledger.executions() == []  # nothing was deleted
    assert response.text is not None
    assert "durable run cannot wait" in response.text


def test_a_nested_prompts_usage_counts_in_a_durable_run_as_in_aevaluate(
    temporal_server: DevServer, ledger: Ledger, task_queue: str
) -> None:
    """The clerk's nested run answers in a tool activity; what it spent reaches the run."""
    durable, plain = durable_and_plain(
        temporal_server, ledger, task_queue, DELEGATING, Task("delegate-look")
    )

    assert durable.text == plain.text == "nothing to do"
    # two outer requests (10, 5 each) and the nested one (7, 3)
    assert durable.usage == plain.usage
    assert (durable.usage.input_tokens, durable.usage.output_tokens) == (27, 13)


def test_workflows_model_requests_and_tool_calls_can_be_served_by_separate_workers(
    temporal_server: DevServer, ledger: Ledger, task_queue: str
) -> None:
    """The deployment layout of specs/DURABLE.md: a queue per kind (per provider for models)."""
    model_queue, tool_queue = f"{task_queue}-scripted", f"{task_queue}-tools"

    async def scenario() -> PromptResponse[Any]:
        client = await Client.connect(temporal_server.address)
        registry = make_registry(ledger)
        workflows = durable_worker(client, registry, task_queue=task_queue, tool_calls=False)
        models = durable_worker(
            client,
            registry,
            task_queue=model_queue,
            adapter=make_adapter(),
            workflows=False,
            tool_calls=False,
        )
        tools = durable_worker(client, registry, task_queue=tool_queue, workflows=False)
        async with workflows, models, tools:
            handle = await start(
                client,
                ledger,
                task_queue,
                "save",
                model_task_queue=model_queue,
                tool_task_queue=tool_queue,
            )
            return await handle.result()

    assert asyncio.run(scenario()).text == "note #1: milk"


async def _wait_for(marker: Path, worker: subprocess.Popen[bytes]) -> None:
    give_up = time.monotonic() + 60
    while not marker.exists():
        if worker.poll() is not None:
            raise AssertionError(f"the worker exited early ({worker.returncode})")
        if time.monotonic() > give_up:
            raise AssertionError("the worker never reached the model request of turn 2")
        await asyncio.sleep(0.02)


def _seconds(value: float) -> Any:
    from datetime import timedelta

    return timedelta(seconds=value)


def test_a_chat_turn_waits_for_confirmation_and_any_process_can_answer_it(
    temporal_server: DevServer, ledger: Ledger, task_queue: str
) -> None:
    """The taskchat integration: a retried request rejoins its run; the answer finishes it."""
    from affordance.runtime.model.messages import UserMessage
    from affordance_temporal.chat import answer_confirmations, chat_turn

    registry = make_registry(ledger)
    transcript = (UserMessage("save milk, then delete it"),)

    async def scenario() -> tuple[Any, Any, Any]:
        client = await Client.connect(temporal_server.address)
        async with durable_worker(client, registry, task_queue=task_queue, adapter=make_adapter()):
            ask = {"conversation_id": "c1", "messages": transcript, "task_queue": task_queue}
            first = await chat_turn(client, registry, PROMPT, Task("save-and-delete"), **ask)
            again = await chat_turn(client, registry, PROMPT, Task("save-and-delete"), **ask)
            done = await answer_confirmations(
                client, registry, PROMPT, first.workflow_id, {"call-del": approve()}
            )
        return first, again, done

    first, again, done = asyncio.run(scenario())

    assert first.needs_confirmation
    assert [p.call_id for p in first.pending] == ["call-del"]
    assert first.said == ASKING
    assert [r.call.id for r in first.tool_results] == ["call-add"]
    assert first.tool_results[0].result.render() == "note #1: milk"
    assert again == first  # the same run, not a second one
    assert done.response is not None
    assert done.response.text == "note #1: milk | deleted note #1"
    assert ledger.executions() == [("add_note", "call-add"), ("delete_note", "call-del")]


def test_a_chat_runs_id_names_its_message_not_only_its_position() -> None:
    from affordance.runtime.model.messages import UserMessage
    from affordance_temporal.chat import chat_workflow_id

    earlier = (UserMessage("hello"), UserMessage("save milk"))
    same = chat_workflow_id("c1", earlier)

    assert same == chat_workflow_id("c1", (UserMessage("hi"), UserMessage("save milk")))
    assert same.startswith("chat-c1-2-")
    assert same != chat_workflow_id("c1", (UserMessage("hello"), UserMessage("delete milk")))
    assert same != chat_workflow_id("c2", earlier)


def test_answers_to_a_run_that_ended_collect_how_it_ended(
    temporal_server: DevServer, ledger: Ledger, task_queue: str
) -> None:
    """An answer whose request gave up after sending it lets the run finish; answering again
    finds it ended and returns its response: the first answers stand."""
    from affordance.runtime.model.messages import UserMessage
    from affordance_temporal.chat import answer_confirmations, chat_turn

    registry = make_registry(ledger)
    ask = {
        "conversation_id": "c-ended",
        "messages": (UserMessage("save milk, then delete it"),),
        "task_queue": task_queue,
    }

    async def scenario() -> Any:
        client = await Client.connect(temporal_server.address)
        async with durable_worker(client, registry, task_queue=task_queue, adapter=make_adapter()):
            first = await chat_turn(client, registry, PROMPT, Task("save-and-delete"), **ask)
            await answer_confirmations(
                client, registry, PROMPT, first.workflow_id, {"call-del": approve()}
            )
            return await answer_confirmations(
                client, registry, PROMPT, first.workflow_id, {"call-del": deny("too late")}
            )

    late = asyncio.run(scenario())

    assert late.response is not None
    assert late.response.text == "note #1: milk | deleted note #1"
    assert ledger.executions() == [("add_note", "call-add"), ("delete_note", "call-del")]


def test_a_chat_turn_cancelled_while_starting_its_run_lets_the_start_finish(
    temporal_server: DevServer, ledger: Ledger, task_queue: str
) -> None:
    """So the caller, cancelled, can cancel the run it started: the run exists by then."""
    from affordance.runtime.model.messages import UserMessage
    from affordance_temporal.chat import chat_turn, chat_workflow_id

    registry = make_registry(ledger)
    transcript = (UserMessage(f"save milk ({uuid.uuid4().hex})"),)

    async def scenario() -> tuple[bool, str]:
        client = await Client.connect(temporal_server.address)
        ask = {"conversation_id": "c2", "messages": transcript, "task_queue": f"{task_queue}-idle"}
        turn = asyncio.ensure_future(
            chat_turn(client, registry, PROMPT, Task("save-and-delete"), **ask)
        )
        await asyncio.sleep(0)  # the start is on its way
        turn.cancel()
        try:
            await turn
        except asyncio.CancelledError:
            cancelled = True
        else:
            cancelled = False
        handle = client.get_workflow_handle(chat_workflow_id("c2", transcript))
        status = (await handle.describe()).status
        await handle.terminate("test over")
        return cancelled, status.name if status is not None else ""

    assert asyncio.run(scenario()) == (True, "RUNNING")


def test_cancelling_a_wait_for_a_run_cancels_the_waiting_task(
    temporal_server: DevServer, ledger: Ledger, task_queue: str
) -> None:
    """No worker runs, so the run never settles: cancelling the wait ends it as a cancellation
    (temporalio reports it as an RPC timeout), and the run itself goes on."""
    registry = make_registry(ledger)

    async def scenario() -> bool:
        client = await Client.connect(temporal_server.address)
        handle = await start_run(
            client,
            registry,
            PROMPT,
            Task("save-and-delete"),
            task_queue=f"{task_queue}-idle",
            workflow_id=f"idle-{uuid.uuid4().hex}",
        )
        waiting = asyncio.ensure_future(handle.settled())
        await asyncio.sleep(0.3)
        waiting.cancel()
        try:
            await waiting
        except asyncio.CancelledError:
            cancelled = True
        else:
            cancelled = False
        await handle.handle.terminate("test over")
        return cancelled

    assert asyncio.run(scenario())


def test_a_durable_run_applies_the_prompt_overrides_it_was_started_with(
    temporal_server: DevServer, tmp_path: Path, task_queue: str
) -> None:
    """The store is read once, at the start: the document travels in the workflow's input and
    the worker's requests carry the overridden section text and tool description."""
    ledger = Ledger(tmp_path / "d.db")
    prompt = make_registry(ledger).prompt(PROMPT)
    seeded = seed_overrides(prompt)
    store = FileOverridesStore(tmp_path / "overrides")
    store.save(
        dataclasses.replace(
            seeded,
            sections={
                **seeded.sections,
                "notes": dataclasses.replace(
                    seeded.sections["notes"], template="Keep careful notes."
                ),
            },
            tools={
                **seeded.tools,
                "add_note": dataclasses.replace(
                    seeded.tools["add_note"], description="Save one short note."
                ),
            },
        )
    )
    adapter = make_adapter()

    async def scenario() -> PromptResponse[Any]:
        client = await Client.connect(temporal_server.address)
        registry = make_registry(ledger)
        async with durable_worker(client, registry, task_queue=task_queue, adapter=adapter):
            handle = await start_run(
                client,
                registry,
                PROMPT,
                Task("save"),
                task_queue=task_queue,
                workflow_id=workflow_id(),
                overrides=store,
            )
            return await handle.result()

    response = asyncio.run(scenario())

    assert response.text is not None
    assert len(adapter.requests) == 2
    for request in adapter.requests:
        assert "Keep careful notes." in request.rendered.text
        add_note = next(tool for tool in request.tools if tool.name == "add_note")
        assert add_note.description == "Save one short note."

"""A durable run takes an answer only for a call pending in it at that moment: an approval sent
before the model asks for a call, for a call that never existed, or that is not approve() /
deny() is refused with ``ConfirmationRefusedError`` and nothing of it is kept — the call, once
asked for, is shown as pending like any other."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
from durable_app import PROMPT, Ledger, NoteRef, Task, make_adapter, make_registry
from temporalio.client import Client

from affordance import approve, deny
from affordance.runtime.record.confirmation import PendingConfirmation
from affordance_temporal import ConfirmationRefusedError, durable_worker, start_run
from affordance_temporal.chat import answer_confirmations
from affordance_temporal.testing import DevServer

pytestmark = pytest.mark.slow

DELETE = PendingConfirmation("call-del", "delete_note", NoteRef(1), {"note_id": 1})
"""What ``save-and-delete`` waits on in turn 2."""


async def refusal(answering: Any) -> ConfirmationRefusedError:
    """The error ``answering`` (an awaitable sending answers) raised; fails if it was taken."""
    try:
        await answering
    except ConfirmationRefusedError as error:
        return error
    raise AssertionError("the answers were taken")


def test_an_approval_sent_before_the_model_asks_for_the_call_is_refused_and_not_kept(
    temporal_server: DevServer, ledger: Ledger, task_queue: str
) -> None:
    """The approval reaches the run before turn 1: refused then, so the deletion the model asks
    for in turn 2 waits for an answer, as if none had been sent."""
    registry = make_registry(ledger)

    async def scenario() -> tuple[ConfirmationRefusedError, Any, list[Any]]:
        client = await Client.connect(temporal_server.address)
        handle = await start_run(
            client,
            registry,
            PROMPT,
            Task("save-and-delete"),
            task_queue=task_queue,
            workflow_id=f"early-{uuid.uuid4().hex[:12]}",
        )
        # no worker yet: the run is at its start when the approval reaches it
        early = asyncio.ensure_future(refusal(handle.confirm("call-del", approve())))
        await asyncio.sleep(0.3)
        async with durable_worker(client, registry, task_queue=task_queue, adapter=make_adapter()):
            refused = await early
            settled = await handle.settled()
            ran_while_waiting = ledger.executions()
            await handle.confirm("call-del", deny("not yet"))
            await handle.result()
        return refused, settled, ran_while_waiting

    refused, settled, ran_while_waiting = asyncio.run(scenario())

    assert refused.not_pending == ("call-del",)
    assert refused.pending == ()
    assert not refused.first_answers_stand
    assert "calls that are not pending: call-del" in str(refused)
    assert "pending now: none" in str(refused)
    assert settled.pending == (DELETE,)  # shown as pending: the early approval was not kept
    assert ran_while_waiting == [("add_note", "call-add")]
    assert ledger.executions() == [("add_note", "call-add")]  # denied, never run


def test_answers_for_unknown_calls_or_not_approve_or_deny_are_refused_all_of_them(
    temporal_server: DevServer, ledger: Ledger, task_queue: str
) -> None:
    """While the run waits on ``call-del``: an id that never existed is refused, alone or beside
    a good answer (nothing of the batch is kept), and so is an answer that is not a
    ``Confirmation``, by the handle and by ``answer_confirmations``; then a real approval
    runs the call once."""
    registry = make_registry(ledger)
    workflow_id = f"unknown-{uuid.uuid4().hex[:12]}"

    async def scenario() -> tuple[list[ConfirmationRefusedError], Any, Any]:
        client = await Client.connect(temporal_server.address)
        async with durable_worker(client, registry, task_queue=task_queue, adapter=make_adapter()):
            handle = await start_run(
                client,
                registry,
                PROMPT,
                Task("save-and-delete"),
                task_queue=task_queue,
                workflow_id=workflow_id,
            )
            await handle.settled()
            unknown_and_good = {"call-nope": approve(), "call-del": approve()}
            refused = [
                await refusal(handle.confirm("call-nope", approve())),
                await refusal(handle.confirm_all(unknown_and_good)),
                await refusal(
                    answer_confirmations(client, registry, PROMPT, workflow_id, unknown_and_good)
                ),
                await refusal(handle.confirm("call-del", True)),  # type: ignore[arg-type]
                await refusal(
                    answer_confirmations(
                        client,
                        registry,
                        PROMPT,
                        workflow_id,
                        {"call-del": "approve"},  # type: ignore[dict-item]
                    )
                ),
            ]
            still = await handle.settled()
            done = await answer_confirmations(
                client, registry, PROMPT, workflow_id, {"call-del": approve()}
            )
        return refused, still, done

    refused, still, done = asyncio.run(scenario())

    by_handle, batch, by_chat, not_answer, chat_not_answer = refused
    assert (by_handle.not_pending, by_handle.pending) == (("call-nope",), ("call-del",))
    assert str(by_handle) == (
        f"run {workflow_id!r} refused the answers, none was kept: calls that are not "
        "pending: call-nope; pending now: call-del"
    )
    assert (batch.not_pending, batch.pending) == (("call-nope",), ("call-del",))
    assert (by_chat.not_pending, by_chat.pending) == (("call-nope",), ("call-del",))
    for wrong in (not_answer, chat_not_answer):
        assert wrong.not_answers == ("call-del",)
        assert "not an approve()/deny() answer: call-del" in str(wrong)
    assert not any(error.first_answers_stand for error in refused)
    assert still.pending == (DELETE,)  # the good answer beside the unknown one was not kept
    assert done.response is not None
    assert done.response.text == "note #1: milk | deleted note #1"
    assert ledger.executions() == [("add_note", "call-add"), ("delete_note", "call-del")]


def test_a_refusal_of_answers_given_before_lets_the_chat_collect_the_run() -> None:
    """``answer_confirmations`` collects a run when the answers only repeat what it took (or
    it has finished); anything unknown is raised."""
    repeat = ConfirmationRefusedError("r", not_pending=("c1",), answered=("c1",))
    finished = ConfirmationRefusedError("r", not_pending=("c9",), finished=True)
    mixed = ConfirmationRefusedError("r", not_pending=("c1", "c9"), answered=("c1",))
    wrong = ConfirmationRefusedError("r", not_answers=("c1",), finished=True)

    assert repeat.first_answers_stand
    assert finished.first_answers_stand
    assert not mixed.first_answers_stand
    assert not wrong.first_answers_stand
    assert "answered already (the first answer stands): c1" in str(repeat)

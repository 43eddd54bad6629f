"""One approval runs one call, in a durable run too: the property of
``affordance_testing.contract_approvals`` on the Temporal plugin, with its own answering rules.

A durable run takes answers a few at a time (``confirm_all``: all of an update or none) and
resumes once every pending call is answered. So a case here is a turn of ``delete`` calls (ids
from a small alphabet: they repeat), answers sent before the model has asked for anything, and
one update of answers once it has; the rest of the pending calls are then denied. Whatever the
case, a ``delete`` runs only when an answer naming its own id approved it while it was pending —
once, with the arguments shown.
"""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("hypothesis")  # a dev tool; the tox matrix's plugin envs run without it

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from temporalio.client import Client

from affordance import PromptEvaluationError, approve, deny
from affordance.runtime.model.turn import ModelRequest, ProviderTurn
from affordance.runtime.record.confirmation import Confirmation
from affordance.testing import ScriptedAdapter
from affordance_temporal import (
    ConfirmationRefusedError,
    PromptRegistry,
    durable_worker,
    start_run,
)
from affordance_temporal.testing import DevServer
from affordance_testing.contract_approvals import ApprovalCase, approval_prompt, model_of

pytestmark = pytest.mark.slow

PROMPT = "approvals"
IDS = st.sampled_from(("call_1", "call_2", "toolu_01"))
VALUES: dict[str, object] = {"approve": approve(), "deny": deny("not now"), "no answer": True}


class _GatedModel(ScriptedAdapter):
    """The scripted model, asking for nothing in a run's first turn until ``gate`` opens (waited
    for off the worker's event loop, which must go on serving the run's updates)."""

    def __init__(self, gate: threading.Event, **options: Any) -> None:
        super().__init__(**options)
        self.gate = gate

    async def asend(self, request: ModelRequest) -> ProviderTurn:
        if request.turn == 1:
            assert await asyncio.to_thread(self.gate.wait, 30), "the model was never let answer"
        return self.send(request)


class _Deployment:
    """A worker on its own thread and event loop, serving every example of a test: its model
    answers the current case, its ``delete`` records each run."""

    def __init__(self, address: str, task_queue: str) -> None:
        self.address = address
        self.task_queue = task_queue
        self.deleted: list[tuple[str, str]] = []
        self.case = ApprovalCase(("call_1",), ())
        self.registry = PromptRegistry({PROMPT: lambda: approval_prompt(self.deleted)})
        self.asking = threading.Event()
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread = threading.Thread(target=asyncio.run, args=(self._serve(),), daemon=True)

    def _answer(self, request: ModelRequest) -> ProviderTurn:
        return model_of(self.case)(repr(request.messages))

    async def _serve(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        client = await Client.connect(self.address)
        adapter = _GatedModel(self.asking, responder=self._answer, record=False)
        async with durable_worker(
            client, self.registry, task_queue=self.task_queue, adapter=adapter
        ):
            self._ready.set()
            await self._stop.wait()

    def __enter__(self) -> _Deployment:
        self._thread.start()
        assert self._ready.wait(30), "the worker did not start"
        return self

    def __exit__(self, *exc_info: object) -> None:
        assert self._loop is not None
        assert self._stop is not None
        self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(30)


@pytest.fixture
def deployment(temporal_server: DevServer, task_queue: str) -> Iterator[_Deployment]:
    with _Deployment(temporal_server.address, task_queue) as made:
        yield made


async def _refused(answering: Any) -> bool:
    try:
        await answering
    except ConfirmationRefusedError:
        return True
    return False


async def _run_case(
    deployment: _Deployment,
    case: ApprovalCase,
    early: tuple[tuple[str, str], ...],
) -> None:
    client = await Client.connect(deployment.address)
    handle = await start_run(
        client,
        deployment.registry,
        PROMPT,
        task_queue=deployment.task_queue,
        workflow_id=f"approvals-{uuid.uuid4().hex[:12]}",
    )
    for call_id, verdict in early:  # before the model has asked for anything
        assert await _refused(handle.confirm(call_id, VALUES[verdict]))  # type: ignore[arg-type]
    deployment.asking.set()
    try:
        settled = await handle.settled()
    except PromptEvaluationError as error:
        failed: PromptEvaluationError | None = error
    else:
        failed = None
    if failed is not None:
        assert len(set(case.call_ids)) < len(case.call_ids), f"refused: {failed}"
        assert failed.phase == "response"
        assert deployment.deleted == []
        return
    pending = settled.pending
    assert len(pending) == len(case.call_ids)
    assert len({p.call_id for p in pending}) == len(pending)
    assert deployment.deleted == [], "a call ran before it was approved"

    ids = [p.call_id for p in pending]
    answers: dict[str, object] = {}
    for target, verdict in case.answers:
        call_id = ids[target % len(ids)] if isinstance(target, int) else target
        answers[call_id] = VALUES[verdict]
    fits = set(answers) <= set(ids) and all(isinstance(a, Confirmation) for a in answers.values())
    refused = await _refused(handle.confirm_all(answers))  # type: ignore[arg-type]
    assert refused == (not fits)
    taken: dict[str, Confirmation] = {} if refused else dict(answers)  # type: ignore[arg-type]
    rest = {call_id: deny("no") for call_id in ids if call_id not in taken}
    if rest:
        await handle.confirm_all(rest)
    response = await handle.result()

    assert response.text == "Done."
    approved = {call_id for call_id, answer in taken.items() if answer.approved}
    expected = [(p.call_id, p.arguments["entity_id"]) for p in pending if p.call_id in approved]
    assert sorted(deployment.deleted) == sorted(expected)


@settings(
    max_examples=40,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
@given(
    call_ids=st.lists(IDS, min_size=1, max_size=3).map(tuple),
    answers=st.lists(
        st.tuples(st.integers(0, 3) | IDS | st.just("call_9"), st.sampled_from(list(VALUES))),
        min_size=1,
        max_size=3,
    ).map(tuple),
    early=st.lists(st.tuples(IDS, st.sampled_from(list(VALUES))), max_size=2).map(tuple),
)
def test_no_destructive_call_runs_without_an_approval_naming_it_while_pending(
    deployment: _Deployment,
    call_ids: tuple[str, ...],
    answers: tuple[tuple[int | str, Any], ...],
    early: tuple[tuple[str, str], ...],
) -> None:
    case = ApprovalCase(call_ids, answers)
    deployment.case = case
    deployment.deleted.clear()
    deployment.asking.clear()

    asyncio.run(_run_case(deployment, case, early))

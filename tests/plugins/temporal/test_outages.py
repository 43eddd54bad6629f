"""Provider outages in durable runs (``affordance_temporal.outages``): the real OpenAI adapter and
SDK over the loopback fake server. A run outlasts a minute of 503s with each tool call run once;
each request is sent once (the SDK's retries are off in the activity: Temporal's policy is the
only one); an error that is not transient ends the run at once; an outage longer than
``provider_outage_limit`` (or than the deadline leaves) ends it with an error saying so."""

from __future__ import annotations

import asyncio
import math
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from durable_app import PROMPT, Ledger, Task, make_registry
from temporalio.client import Client

from affordance import PromptEvaluationError, PromptResponse
from affordance_temporal import RunOptions, durable_worker, start_run
from affordance_temporal.outages import retry_delay
from affordance_temporal.testing import DevServer

openai = pytest.importorskip("openai")
loopback = pytest.importorskip("loopback")
affordance_openai = pytest.importorskip("affordance_openai")

pytestmark = pytest.mark.slow

MINUTE = 60.0
"""Seconds of real time the provider answers 503 in the long test."""
DOWN, OUTAGE = "down", "outage"


class Provider:
    """A responder for the Responses route, answering with ``replies`` in turn: a reply, ``DOWN``
    (one 503), or ``OUTAGE`` (503s until ``outage`` seconds have passed since its first one)."""

    def __init__(self, *replies: Any, outage: float = 0.0) -> None:
        self.replies = list(replies)
        self.outage = outage
        self.outage_started: float | None = None
        self.recovered: float | None = None
        self.lock = threading.Lock()

    def __call__(self, request: Any) -> Any:
        with self.lock:
            now = time.monotonic()
            if self.replies and self.replies[0] == OUTAGE:
                if self.outage_started is None:
                    self.outage_started = now
                if now - self.outage_started < self.outage:
                    return loopback.overloaded(503)
                self.recovered = now
                self.replies.pop(0)
            if not self.replies:
                raise LookupError("no reply left")
            reply = self.replies.pop(0)
            return loopback.overloaded(503) if reply == DOWN else reply


@contextmanager
def provider(*replies: Any, outage: float = 0.0) -> Iterator[tuple[Any, Provider]]:
    responder = Provider(*replies, outage=outage)
    with loopback.openai_server() as server:
        server.set_responder(responder, path=loopback.RESPONSES_PATH)
        yield server, responder


async def durable_run(
    temporal_server: DevServer, server: Any, ledger: Ledger, task_queue: str, options: RunOptions
) -> tuple[PromptResponse[Any] | BaseException, list[int]]:
    """The ``save`` script's run over ``server`` with an SDK client that would retry (the
    default ``max_retries=2``): its response or error, and the attempt count each model
    request's activity ended with, from the history."""
    client = await Client.connect(temporal_server.address)
    registry = make_registry(ledger)
    async with openai.AsyncOpenAI(
        base_url=server.base_url,
        api_key="test",
        http_client=openai.DefaultAsyncHttpxClient(verify=False),
    ) as sdk:
        assert sdk.max_retries == 2
        adapter = affordance_openai.OpenAIAdapter("gpt-test", client=sdk)
        async with durable_worker(client, registry, task_queue=task_queue, adapter=adapter):
            handle = await start_run(
                client,
                registry,
                PROMPT,
                Task("save"),
                task_queue=task_queue,
                workflow_id=f"outage-{uuid.uuid4().hex[:12]}",
                options=options,
            )
            outcome: PromptResponse[Any] | BaseException
            try:
                outcome = await handle.result()
            except PromptEvaluationError as error:
                outcome = error
    history = await handle.handle.fetch_history()
    scheduled = {
        e.event_id: e.activity_task_scheduled_event_attributes.activity_type.name
        for e in history.events
        if e.HasField("activity_task_scheduled_event_attributes")
    }
    attempts = [
        e.activity_task_started_event_attributes.attempt
        for e in history.events
        if e.HasField("activity_task_started_event_attributes")
        and scheduled[e.activity_task_started_event_attributes.scheduled_event_id]
        == "affordance.model_turn"
    ]
    return outcome, attempts


def test_a_durable_run_outlasts_a_minute_long_provider_outage_running_each_call_once(
    temporal_server: DevServer, ledger: Ledger, task_queue: str
) -> None:
    """Turn 1 calls ``add_note``; then the provider answers 503 for 60 s of real time, and
    recovers. The run retries turn 2's request with Temporal's backoff (1 s doubling to 4 s),
    each attempt one HTTP request, and finishes; the note was added once."""
    options = RunOptions(model_retry_interval=1, model_retry_max_interval=4)
    with provider(
        loopback.response_function_calls([("call_1", "add_note", {"text": "milk"})]),
        OUTAGE,
        loopback.response_text("Saved milk."),
        outage=MINUTE,
    ) as (server, outage):
        response, attempts = asyncio.run(
            durable_run(temporal_server, server, ledger, task_queue, options)
        )
        requests = server.requests
        assert not server.failures

    assert isinstance(response, PromptResponse), response
    assert response.text == "Saved milk."
    assert ledger.executions() == [("add_note", "call_1")]  # exactly once
    assert outage.outage_started is not None
    assert outage.recovered is not None
    assert outage.recovered - outage.outage_started >= MINUTE
    assert outage.recovered - outage.outage_started < MINUTE + 10  # backoff at most 4 s
    # every HTTP request a first attempt for the SDK; Temporal's attempts are the requests
    assert {request.retry_count for request in requests} == {0}
    assert attempts == [1, len(requests) - 1]
    assert len(requests) - 2 >= MINUTE / 4 - 2  # the 503s: retried all along the outage


@pytest.mark.parametrize(
    ("final", "status"),
    [
        (loopback.openai_error(400, "bad request"), 400),
        (loopback.openai_error(401, "no such key"), 401),
        (loopback.malformed_json(), 200),
    ],
    ids=["400", "401", "malformed-body"],
)
def test_an_error_that_is_not_transient_ends_the_run_at_once_even_mid_outage(
    temporal_server: DevServer, ledger: Ledger, task_queue: str, final: Any, status: int
) -> None:
    """Two 503s are retried (by Temporal: attempts 1 and 2); the 400, the 401 or the body that
    does not parse on attempt 3 is final: no attempt follows."""
    options = RunOptions(model_retry_interval=0.1, model_retry_max_interval=0.1)
    with provider(DOWN, DOWN, final) as (server, _):
        error, attempts = asyncio.run(
            durable_run(temporal_server, server, ledger, task_queue, options)
        )
        requests = server.requests

    assert isinstance(error, PromptEvaluationError), error
    assert error.provider == "openai"
    if status != 200:
        assert (error.status, error.phase) == (status, "request")
        assert f"openai answered HTTP {status}" in error.message
    assert {request.retry_count for request in requests} == {0}
    assert len(requests) == 3
    assert attempts == [3]
    assert ledger.executions() == []


@pytest.mark.parametrize(
    ("options", "says"),
    [
        (RunOptions(provider_outage_limit=3), "past provider_outage_limit=3 s"),
        (RunOptions(deadline=3, provider_outage_limit=None), "past the run's deadline"),
    ],
    ids=["outage-limit", "deadline"],
)
def test_an_outage_longer_than_the_limit_or_the_deadline_ends_the_run_saying_so(
    temporal_server: DevServer, ledger: Ledger, task_queue: str, options: RunOptions, says: str
) -> None:
    options = RunOptions(
        deadline=options.deadline,
        provider_outage_limit=options.provider_outage_limit,
        model_retry_interval=0.5,
        model_retry_max_interval=1,
    )
    with provider(OUTAGE, outage=math.inf) as (server, _):
        started = time.monotonic()
        error, attempts = asyncio.run(
            durable_run(temporal_server, server, ledger, task_queue, options)
        )
        took = time.monotonic() - started
        requests = server.requests

    assert isinstance(error, PromptEvaluationError), error
    assert says in error.message
    assert error.status == 503  # the provider's last answer
    assert 1.5 < took < 10
    assert len(requests) >= 2
    assert attempts == [len(requests)]


# -- Temporal's waits, and one attempt per request ---------------------------------------------


def test_temporals_wait_after_each_attempt_doubles_up_to_the_maximum() -> None:
    from affordance_temporal.options import model_activity_options

    policy = model_activity_options(
        RunOptions(model_retry_interval=1, model_retry_max_interval=4)
    ).retry_policy

    assert [retry_delay(policy, attempt) for attempt in range(1, 6)] == [1, 2, 4, 4, 4]
    assert retry_delay(None, 3) == 0

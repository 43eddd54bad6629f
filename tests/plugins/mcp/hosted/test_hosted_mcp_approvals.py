"""Approvals OpenAI Responses asks for before it runs an MCP call, through the real OpenAI
adapter and SDK over the loopback server: an ``mcp_approval_request`` suspends the run with the
call in ``pending_confirmations`` (as a destructive local call does), and resuming with the
caller's answer sends it as an ``mcp_approval_response`` on the next request — plain, streamed,
sync and async alike."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hosted_mcp_samples import (
    ANSWER,
    ARGUMENTS,
    EXPECTED,
    openai_answer,
    openai_approval_request,
    openai_body,
    openai_call,
    openai_list_tools,
    openai_stream,
    prompt,
)
from hosted_tools.runs import PROVIDER_WIRES, available
from loopback import JsonReply

from affordance import ConfirmationRequired, PromptResponse, approve, deny
from affordance.runtime import PendingConfirmation
from affordance_mcp.hosted import HostedMCPResult

pytestmark = pytest.mark.skipif(not available("openai"), reason="affordance-openai is missing")

WIRE = PROVIDER_WIRES["openai"]
ASKING = openai_body(openai_list_tools(), openai_approval_request())
RAN = openai_body(openai_call(), openai_answer())
PENDING = PendingConfirmation("mcpr_1", "search", ARGUMENTS, ARGUMENTS, hosted_tool="mcp")
AFTER_APPROVAL = HostedMCPResult(EXPECTED.calls)
"""The call, without the listing: the API listed the tools in the response that asked."""


def test_an_approval_request_suspends_the_run_with_the_call_pending() -> None:
    with WIRE.running() as (server, adapter):
        WIRE.script_plain(server, ASKING)
        response = adapter.evaluate(prompt())

    assert response.pending_confirmations == (PENDING,)
    assert response.needs_confirmation
    assert response.finish_reason == "confirmation_required"
    assert response.hosted_outputs == {}  # nothing ran yet
    assert response.session.pending_call_ids() == ("mcpr_1",)


def test_an_approval_is_sent_on_the_next_request_and_the_call_then_runs() -> None:
    asked = prompt()
    with WIRE.running() as (server, adapter):
        WIRE.script_plain(server, ASKING, RAN)
        first = adapter.evaluate(asked)
        second = adapter.evaluate(asked, session=first.session, confirmations={"mcpr_1": approve()})

    assert second.text == ANSWER
    assert second.hosted_outputs == {"mcp": AFTER_APPROVAL}
    assert not second.needs_confirmation
    sent = server.requests[1].body["input"]
    assert [item.get("type") for item in sent[-3:]] == [
        "mcp_list_tools",
        "mcp_approval_request",
        "mcp_approval_response",
    ]
    assert sent[-1] == {
        "type": "mcp_approval_response",
        "approval_request_id": "mcpr_1",
        "approve": True,
    }
    assert first.session.pending_call_ids() == ()


def test_a_denial_is_sent_with_its_reason() -> None:
    asked = prompt()
    refused = openai_body(openai_answer("I could not look it up."))
    with WIRE.running() as (server, adapter):
        WIRE.script_plain(server, ASKING, refused)
        first = adapter.evaluate(asked)
        second = adapter.evaluate(
            asked, session=first.session, confirmations={"mcpr_1": deny("not now")}
        )

    assert second.text == "I could not look it up."
    assert second.hosted_outputs == {}
    assert server.requests[1].body["input"][-1] == {
        "type": "mcp_approval_response",
        "approval_request_id": "mcpr_1",
        "approve": False,
        "reason": "not now",
    }


def test_answers_that_do_not_fit_are_refused_and_nothing_is_sent() -> None:
    from affordance import PromptEvaluationError

    asked = prompt()
    with WIRE.running() as (server, adapter):
        WIRE.script_plain(server, ASKING)
        first = adapter.evaluate(asked)
        with pytest.raises(PromptEvaluationError, match="no suspended evaluation"):
            adapter.evaluate(asked, session=first.session, confirmations={"mcpr_x": approve()})

    assert len(server.requests) == 1
    assert first.session.pending_call_ids() == ("mcpr_1",)  # still waiting for its answer


def test_streamed_the_approval_is_an_event_and_resuming_streams_the_result() -> None:
    asked = prompt()
    with WIRE.running() as (server, adapter):
        server.script(WIRE.path, openai_stream(ASKING), openai_stream(RAN))
        with adapter.stream(asked) as events:
            required = [e for e in events if isinstance(e, ConfirmationRequired)]
        first = events.response
        assert first is not None
        with adapter.stream(
            asked, session=first.session, confirmations={"mcpr_1": approve()}
        ) as events:
            for _ in events:
                pass
        second = events.response

    assert required == [ConfirmationRequired("mcpr_1", "search", ARGUMENTS)]
    assert first.pending_confirmations == (PENDING,)
    assert second is not None
    assert second.hosted_outputs == {"mcp": AFTER_APPROVAL}
    assert server.requests[1].body["input"][-1]["type"] == "mcp_approval_response"


def test_async_evaluate_and_astream_suspend_and_resume_alike() -> None:
    asked = prompt()

    async def run(adapter: Any) -> list[PromptResponse[Any]]:
        first = await adapter.aevaluate(asked)
        second = await adapter.aevaluate(
            asked, session=first.session, confirmations={"mcpr_1": approve()}
        )
        async with adapter.astream(asked) as stream:
            async for _ in stream:
                pass
        third = stream.response
        async with adapter.astream(
            asked, session=third.session, confirmations={"mcpr_1": approve()}
        ) as stream:
            async for _ in stream:
                pass
        await adapter.aclose()
        return [first, second, third, stream.response]

    with WIRE.running() as (server, adapter):
        server.script(WIRE.path, JsonReply(ASKING), JsonReply(RAN))
        server.script(WIRE.path, openai_stream(ASKING), openai_stream(RAN))
        first, second, third, fourth = asyncio.run(run(adapter))

    assert first.pending_confirmations == third.pending_confirmations == (PENDING,)
    assert second.hosted_outputs == fourth.hosted_outputs == {"mcp": AFTER_APPROVAL}
    answers = [request.body["input"][-1] for request in server.requests[1::2]]
    assert answers == [answers[0]] * 2
    assert answers[0]["approve"] is True


def test_an_approval_beside_a_finished_call_keeps_the_finished_one() -> None:
    """One response ran a call that needed no approval and holds another for approval: the
    finished call is the output, the other waits."""
    asked = prompt()
    mixed = openai_body(openai_call(), openai_approval_request("mcpr_2"))
    with WIRE.running() as (server, adapter):
        WIRE.script_plain(server, mixed)
        response = adapter.evaluate(asked)

    assert [p.call_id for p in response.pending_confirmations] == ["mcpr_2"]
    result = response.hosted_outputs["mcp"]
    assert result.calls == EXPECTED.calls  # type: ignore[attr-defined]


def test_another_servers_approval_is_not_this_tools() -> None:
    with WIRE.running() as (server, adapter):
        WIRE.script_plain(
            server, openai_body(openai_approval_request(label="other"), openai_answer())
        )
        response = adapter.evaluate(prompt())

    assert response.pending_confirmations == ()
    assert response.text == ANSWER
